"""Callbacks: hooks the trainer calls on each of its callbacks in turn."""

import torch
import torch.distributed as dist


class Callback:
    def on_step_begin(self, trainer) -> None:
        pass

    def on_step_end(self, trainer, loss: torch.Tensor) -> None:
        pass

    def on_epoch_end(self, trainer, epoch: int) -> None:
        pass


class StepTimer(Callback):
    def __init__(self) -> None:
        self.start = torch.npu.Event(enable_timing=True)
        self.stop = torch.npu.Event(enable_timing=True)
        self.times: list = []

    def on_step_begin(self, trainer) -> None:
        self.start.record()

    def on_step_end(self, trainer, loss: torch.Tensor) -> None:
        self.stop.record(trainer.lane)


class LossAverager(Callback):
    def __init__(self) -> None:
        self.total = 0.0

    def on_step_end(self, trainer, loss: torch.Tensor) -> None:
        self.total += float(loss.detach())


class GradAllReduce(Callback):
    def on_step_end(self, trainer, loss: torch.Tensor) -> None:
        with torch.npu.stream(trainer.lane):
            for p in trainer.model.parameters():
                if p.grad is not None:
                    dist.all_reduce(p.grad)


class HostSnapshot(Callback):
    def __init__(self) -> None:
        self.snapshots: list = []

    def on_epoch_end(self, trainer, epoch: int) -> None:
        with torch.npu.stream(trainer.lane):
            state = {
                k: v.to("cpu", non_blocking=True) for k, v in trainer.model.state_dict().items()
            }
        self.snapshots.append((epoch, state))
