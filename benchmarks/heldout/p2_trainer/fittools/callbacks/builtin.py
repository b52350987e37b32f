"""Built-in callbacks."""

import time

import torch

from . import Callback


class StepTimer(Callback):
    name = "timer"

    def on_step_begin(self, trainer) -> None:
        self.start = torch.npu.Event(enable_timing=True)
        self.start.record(trainer.streams.compute)

    def on_step_end(self, trainer) -> None:
        end = torch.npu.Event(enable_timing=True)
        end.record(trainer.streams.compute)
        end.synchronize()
        trainer.log["step_ms"] = self.start.elapsed_time(end)


class CommTimer(Callback):
    name = "comm_timer"

    def on_step_begin(self, trainer) -> None:
        self.t0 = time.perf_counter()

    def on_step_end(self, trainer) -> None:
        trainer.streams.comm.synchronize()
        trainer.log["comm_s"] = time.perf_counter() - self.t0


class GradNormMonitor(Callback):
    name = "grad_norm"

    def on_step_end(self, trainer) -> None:
        norms = [p.grad.norm() for p in trainer.model.parameters() if p.grad is not None]
        trainer.log["grad_norm"] = torch.stack(norms).norm().item()
