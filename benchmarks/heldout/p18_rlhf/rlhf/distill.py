"""Distillation with gradient accumulation; parts of the step run on the reward lane."""

from typing import List

import torch
from torch import nn

from .lanes import ComputeLanes, RewardLane
from .losses import grad_mode, maybe_no_sync


def soft_ce(student: torch.Tensor, teacher: torch.Tensor, t: float = 2.0) -> torch.Tensor:
    return -(teacher.div(t).softmax(-1) * student.div(t).log_softmax(-1)).sum(-1).mean()


class Distiller:
    def __init__(self, student: nn.Module, teacher: nn.Module, opt, lane_handle: int):
        self.student = student
        self.teacher = teacher
        self.opt = opt
        self.lane = RewardLane(lane_handle)
        self.lanes = ComputeLanes()
        self.side = torch.cuda.Stream()

    @torch.inference_mode()
    def targets(self, x: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.lane.stream):
            return self.teacher(x)

    def train_step(self, micro: List[torch.Tensor]) -> float:
        total = 0.0
        for i, x in enumerate(micro):
            with maybe_no_sync(self.student, i == len(micro) - 1):
                loss = soft_ce(self.student(x), self.targets(x)) / len(micro)
                loss.backward()
            total += loss.item()
        self.opt.step()
        self.opt.zero_grad()
        return total

    # the student's forward on the lane, its backward after the lane is left
    def train_step_on_lane(self, micro: List[torch.Tensor]) -> float:
        total = 0.0
        for i, x in enumerate(micro):
            with maybe_no_sync(self.student, i == len(micro) - 1):
                with torch.npu.stream(self.lane.stream):
                    loss = soft_ce(self.student(x), self.targets(x)) / len(micro)
                loss.backward()  # expect: XST203
            total += loss.item()
        self.opt.step()
        return total

    # forward and backward both under the lane: accepted
    def train_step_all_on_lane(self, micro: List[torch.Tensor]) -> float:
        total = 0.0
        with torch.npu.stream(self.lane.stream):
            for i, x in enumerate(micro):
                with maybe_no_sync(self.student, i == len(micro) - 1):
                    loss = soft_ce(self.student(x), self.targets(x)) / len(micro)
                    loss.backward()
                total += loss.item()
        self.opt.step()
        return total

    # two losses made on different streams, summed and walked once
    def two_stream_step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        with torch.npu.stream(self.lane.stream):
            aux = self.student(y).pow(2).mean()
        with self.lanes.on_main():
            main = soft_ce(self.student(x), self.targets(x))
        total = main + 0.1 * aux
        total.backward()  # expect: XST203
        return total.item()

    def two_stream_step_managed(self, x: torch.Tensor, y: torch.Tensor) -> float:
        with torch.npu.stream(self.lanes.side):
            aux = self.student(y).pow(2).mean()
        with self.lanes.on_main():
            main = soft_ce(self.student(x), self.targets(x))
        total = main + 0.1 * aux
        total.backward()
        return total.item()

    def cuda_reference(self, x: torch.Tensor) -> float:
        with torch.cuda.stream(self.side):
            loss = soft_ce(self.student(x), self.targets(x))
        loss.backward()
        return loss.item()

    # eval / train switch through a helper: a literal False records nothing
    def evaluate(self, x: torch.Tensor, train: bool = False) -> torch.Tensor:
        with torch.npu.stream(self.lane.stream), grad_mode(train):
            s = self.student(x)
        return s

    def consistency(self, x: torch.Tensor) -> float:
        anchor = self.evaluate(x)
        loss = soft_ce(self.student(x), anchor)
        loss.backward()
        return loss.item()

    def consistency_train(self, x: torch.Tensor) -> float:
        anchor = self.evaluate(x, train=True)
        loss = soft_ce(self.student(x), anchor)
        loss.backward()  # expect: XST203
        return loss.item()

    # the reverse: graph built on our stream, walked under the lane
    def backward_on_lane(self, x: torch.Tensor) -> float:
        loss = soft_ce(self.student(x), self.targets(x))
        with torch.npu.stream(self.lane.stream):
            loss.backward()  # expect: XST203
        return loss.item()

    def backward_on_lane_detached(self, x: torch.Tensor) -> float:
        feats = self.student(x).detach()
        with torch.npu.stream(self.lane.stream):
            probe = torch.zeros(feats.shape[-1], 1, device=feats.device, requires_grad=True)
            loss = (feats @ probe).pow(2).mean()
            loss.backward()
        return loss.item()

    # requires_grad=True under the lane makes a leaf whose graph is recorded there
    def probe_outside(self, x: torch.Tensor) -> float:
        feats = self.student(x).detach()
        with torch.npu.stream(self.lane.stream):
            probe = torch.zeros(feats.shape[-1], 1, device=feats.device, requires_grad=True)
            loss = (feats @ probe).pow(2).mean()
        loss.backward()  # expect: XST203
        return probe.grad.norm().item()
