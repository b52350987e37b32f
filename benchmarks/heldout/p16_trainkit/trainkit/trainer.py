"""The trainer: forward under its lane, backward, then the callbacks' hooks."""

import contextlib
from typing import Iterable, List, Optional

import torch
import torch.distributed as dist

from trainkit.callbacks import Callback, LossAverager, StepTimer
from trainkit.lanes import comm_lane_handle


class Trainer:
    def __init__(
        self,
        model: torch.nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        lane: Optional["torch.npu.Stream"] = None,
        callbacks: Optional[List[Callback]] = None,
    ) -> None:
        self.model = model
        self.optimizer = optimizer
        self._lane = lane if lane is not None else torch.npu.Stream()
        self.callbacks: list[Callback] = list(callbacks or [])

    @classmethod
    def on_comm_lane(cls, model, optimizer, rank: int, **kwargs) -> "Trainer":
        lane = torch.npu.ExternalStream(comm_lane_handle(rank), device=rank)
        return cls(model, optimizer, lane=lane, **kwargs)

    @classmethod
    def with_defaults(cls, model, optimizer, **kwargs) -> "Trainer":
        return cls(model, optimizer, callbacks=[StepTimer(), LossAverager()], **kwargs)

    @property
    def lane(self) -> "torch.npu.Stream":
        return self._lane

    @lane.setter
    def lane(self, value: "torch.npu.Stream") -> None:
        self._lane = value

    def step(self, batch: torch.Tensor) -> torch.Tensor:
        for cb in self.callbacks:
            cb.on_step_begin(self)
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.npu.stream(self.lane))
            loss = self.model(batch).mean()
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        for cb in self.callbacks:
            cb.on_step_end(self, loss)
        return loss

    def fit(self, loader: Iterable[torch.Tensor], epochs: int = 1) -> None:
        for epoch in range(epochs):
            for batch in loader:
                self.step(batch)
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch)


class OverlapTrainer(Trainer):
    """Gradient reduction overlapped on the communication library's lane."""

    def __init__(self, model, optimizer, rank: int, **kwargs) -> None:
        lane = torch.npu.ExternalStream(comm_lane_handle(rank), device=rank)
        super().__init__(model, optimizer, lane=lane, **kwargs)

    def reduce_grads(self) -> None:
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.npu.stream(self.lane))
            for p in self.model.parameters():
                dist.all_reduce(p.grad)  # expect: XST111


def evaluate(model: torch.nn.Module, loader: Iterable[torch.Tensor], rank: int) -> float:
    lane = torch.npu.ExternalStream(comm_lane_handle(rank), device=rank)
    total = 0.0
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        stack.enter_context(torch.npu.stream(lane))
        for x in loader:
            total += float(model(x).sum())
            torch.npu.current_stream().synchronize()  # expect: XST101
    return total


def evaluate_managed(model: torch.nn.Module, loader: Iterable[torch.Tensor]) -> float:
    total = 0.0
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        stack.enter_context(torch.npu.stream(torch.npu.Stream()))
        for x in loader:
            total += float(model(x).sum())
            torch.npu.current_stream().synchronize()
    return total
