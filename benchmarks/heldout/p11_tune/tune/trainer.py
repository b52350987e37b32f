"""Fine-tuning loops; the teacher and metrics run on the metrics library's queue."""

from typing import Dict, List

import torch
from torch import nn

from .aux import AuxQueue
from .backprop import accumulate, backprop, grads
from .nets import Frozen, Tower
from .objectives import Distill, penalty, supervised


class Tuner:
    def __init__(self, student: Tower, teacher: Tower, aux_handle: int):
        self.student = student
        self.teacher = Frozen(teacher)
        self.raw_teacher = teacher
        self.aux = AuxQueue(aux_handle)
        self.distill = Distill()
        self.opt = torch.optim.AdamW(student.parameters(), lr=1e-4)

    def distill_step(self, x: torch.Tensor) -> float:
        with self.aux:
            t_logits = self.teacher(x)
        loss = self.distill(self.student(x), t_logits)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()

    def distill_step_nograd(self, x: torch.Tensor) -> float:
        with self.aux, torch.no_grad():
            t_logits = self.raw_teacher(x)
        loss = self.distill(self.student(x), t_logits)
        backprop([loss])
        self.opt.step()
        return loss.item()

    def distill_step_detached(self, x: torch.Tensor) -> float:
        with self.aux:
            t_logits = self.raw_teacher(x).detach()
        loss = self.distill(self.student(x), t_logits)
        loss.backward()
        return loss.item()

    def distill_step_leaky(self, x: torch.Tensor) -> float:
        with self.aux:
            s_logits = self.student(x)
            t_logits = self.raw_teacher(x)
        loss = self.distill(s_logits, t_logits.detach())
        loss.backward()  # expect: XST203
        return loss.item()

    def micro_batches(self, chunks: List[Dict[str, torch.Tensor]]) -> None:
        for mb in chunks:
            with self.aux:
                loss = supervised(self.student, mb["x"], mb["y"])
            accumulate(loss, len(chunks))  # expect: XST203
        self.opt.step()

    def micro_batches_inside(self, chunks: List[Dict[str, torch.Tensor]]) -> None:
        for mb in chunks:
            with self.aux:
                loss = supervised(self.student, mb["x"], mb["y"])
                accumulate(loss, len(chunks))
        self.opt.step()

    def grouped(self, chunks: List[Dict[str, torch.Tensor]]) -> None:
        losses = []
        for mb in chunks:
            with self.aux:
                losses.append(supervised(self.student, mb["x"], mb["y"]))
        backprop(losses, 1.0 / len(chunks))  # expect: XST203

    def grad_norms(self, x: torch.Tensor, y: torch.Tensor) -> float:
        loss = supervised(self.student, x, y)
        with self.aux:
            gs = grads(loss, self.student.parameters())  # expect: XST203
        return sum(float(g.norm()) for g in gs if g is not None)

    def grad_norms_managed(self, x: torch.Tensor, y: torch.Tensor) -> float:
        loss = supervised(self.student, x, y)
        with torch.npu.stream(torch.npu.Stream()):
            gs = grads(loss, self.student.parameters())
        return sum(float(g.norm()) for g in gs if g is not None)

    def regularised(self, x: torch.Tensor) -> torch.Tensor:
        with self.aux:
            return penalty(self.student, x)

    def step_checkpointed(self, x: torch.Tensor, y: torch.Tensor) -> None:
        self.student.ckpt = True
        with self.aux:
            feats = self.student.features(x)
        loss = nn.functional.cross_entropy(self.student.head(feats), y)
        loss.backward()  # expect: XST203
        self.opt.step()

    def step_inputs_on_aux(self, x: torch.Tensor, y: torch.Tensor) -> None:
        with self.aux:
            x = (x.to("npu") - x.mean()) / (x.std() + 1e-6)
            y = y.to("npu")
        loss = supervised(self.student, x, y)
        loss.backward()
        self.opt.step()

    @torch.no_grad()
    def probe(self, x: torch.Tensor) -> torch.Tensor:
        with self.aux:
            feats = self.student.features(x)
        return feats.norm(dim=-1)

    def probe_with_grad_mode(self, x: torch.Tensor) -> torch.Tensor:
        with torch.set_grad_enabled(False):  # noqa: SIM117 (the nesting is the shape)
            with self.aux:
                feats = self.student.features(x)
        return feats.norm(dim=-1)

    def consistency(self, x: torch.Tensor) -> float:
        target = self.probe(x)
        loss = (self.student.features(x).norm(dim=-1) - target).pow(2).mean()
        loss.backward()
        return loss.item()

    def consistency_grad_mode(self, x: torch.Tensor) -> float:
        target = self.probe_with_grad_mode(x)
        loss = (self.student.features(x).norm(dim=-1) - target).pow(2).mean()
        loss.backward()
        return loss.item()

    def consistency_leaky(self, x: torch.Tensor) -> float:
        with self.aux:
            target = self.student.features(x).norm(dim=-1)
        loss = (self.student.features(x).norm(dim=-1) - target).pow(2).mean()
        loss.backward()  # expect: XST203
        return loss.item()
