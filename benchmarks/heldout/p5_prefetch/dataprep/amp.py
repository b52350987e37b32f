"""Mixed-precision step with the input pipeline on the I/O library's stream."""

import functools
from typing import Dict

import torch
from torch_npu.npu import ExternalStream


def on_stream(make):
    """Run the decorated step with the stream `make(self)` returns current."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            with torch.npu.stream(make(self)):
                return fn(self, *args, **kwargs)

        return wrapper

    return deco


class AmpStep:
    def __init__(self, model: torch.nn.Module, opt, io_handle: int):
        self.model = model
        self.opt = opt
        self.io = ExternalStream(io_handle)
        self.scaler = torch.npu.amp.GradScaler()
        self.copy_kw = {"non_blocking": True}

    @on_stream(lambda self: self.io)
    def forward(self, batch: Dict[str, torch.Tensor]) -> torch.Tensor:
        with torch.autocast("npu", dtype=torch.bfloat16):
            return self.model(batch["x"].to("npu")).float().mean()

    def step(self, batch: Dict[str, torch.Tensor]) -> float:
        loss = self.forward(batch)
        self.scaler.scale(loss).backward()  # expect: XST203
        self.scaler.step(self.opt)
        self.scaler.update()
        return loss.item()

    def step_inside(self, batch: Dict[str, torch.Tensor]) -> float:
        with torch.npu.stream(self.io):
            loss = self.model(batch["x"].to("npu")).float().mean()
            self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()
        return loss.item()

    def grad_penalty(self, x: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.io):
            y = self.model(x)
        (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)  # expect: XST203
        return g.pow(2).mean()

    def export(self, t: torch.Tensor) -> torch.Tensor:
        host = torch.empty(t.shape, dtype=t.dtype, pin_memory=True)
        with torch.npu.stream(self.io):
            host.copy_(t, **self.copy_kw)  # expect: XST201
            t.record_stream(self.io)  # expect: XST105
        return host

    def export_pageable(self, t: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.io):
            return t.to(torch.device("cpu"))

    def export_device(self, t: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.io):
            return t.to(torch.device("cpu"), non_blocking=True)  # expect: XST201

    def keep_alive(self, t: torch.Tensor) -> None:
        torch.Tensor.record_stream(t, self.io)  # expect: XST105
