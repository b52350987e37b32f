"""A small trainer: gradient accumulation, bucketed all-reduce overlapped on the comm stream."""

from typing import Dict, Iterable, List

import torch
import torch.distributed as dist

from .callbacks import Callback, build
from .config import TrainConfig
from .placement import OverlapStreams


class Trainer:
    def __init__(self, model: torch.nn.Module, cfg: TrainConfig):
        self.cfg = cfg
        self.device = torch.device(cfg.placement.device)
        self.model = model.to(self.device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self.streams = OverlapStreams(cfg.placement)
        self.callbacks: List[Callback] = build(cfg.callbacks)
        self.log: Dict[str, float] = {}

    def _emit(self, hook: str) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(self)

    def _reduce_grads(self) -> None:
        self.streams.handoff()
        with torch.npu.stream(self.streams.comm):
            for p in self.model.parameters():
                if p.grad is not None:
                    dist.all_reduce(p.grad)
        torch.npu.synchronize()

    def train_step(self, batch: Dict[str, torch.Tensor], step: int) -> float:
        self._emit("on_step_begin")
        x = batch["x"].to(self.device)
        y = batch["y"].to(self.device)
        loss = torch.nn.functional.cross_entropy(self.model(x), y) / self.cfg.grad_accum
        loss.backward()
        if (step + 1) % self.cfg.grad_accum == 0:
            if dist.is_initialized():
                self._reduce_grads()
            self.opt.step()
            self.opt.zero_grad(set_to_none=True)
        self._emit("on_step_end")
        return loss.item()

    def train_step_aux(self, batch: Dict[str, torch.Tensor], aux_head: torch.nn.Module) -> float:
        x = batch["x"].to(self.device)
        # the auxiliary head is small: run it beside the main forward on the comm stream
        with torch.npu.stream(self.streams.comm):
            aux = aux_head(x).pow(2).mean()
        loss = self.model(x).mean() + 0.1 * aux
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()

    def fit(self, loader: Iterable) -> None:
        for _ in range(self.cfg.epochs):
            for step, batch in enumerate(loader):
                self.train_step(batch, step)
