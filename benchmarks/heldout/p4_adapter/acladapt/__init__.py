from .handles import StreamHandle
from .view import TorchStreamView

__all__ = ["StreamHandle", "TorchStreamView"]
