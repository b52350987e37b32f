from .runtime import PipelineRuntime

__all__ = ["PipelineRuntime"]
