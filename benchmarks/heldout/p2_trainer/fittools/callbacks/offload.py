"""Offloads activations to host memory on the offload engine's own stream."""

import importlib
from typing import Dict

import torch
import torch_npu

from . import Callback


def _engine_stream_handle() -> int:
    engine = importlib.import_module("offload_engine")
    return engine.current().stream_handle()


class ActivationOffload(Callback):
    name = "offload"

    def __init__(self):
        self.stream = torch_npu.npu.ExternalStream(_engine_stream_handle())
        self.host_bufs: Dict[str, torch.Tensor] = {}
        self.hooks = []

    def on_step_begin(self, trainer) -> None:
        for name, mod in trainer.model.named_modules():
            if isinstance(mod, torch.nn.Linear):
                self.hooks.append(mod.register_forward_hook(self._saver(name)))

    def _saver(self, name: str):
        def hook(mod, inp, out):
            buf = self.host_bufs.get(name)
            if buf is None:
                buf = torch.empty(out.shape, dtype=out.dtype, pin_memory=True)
                self.host_bufs[name] = buf
            with torch.npu.stream(self.stream):
                buf.copy_(out.detach(), non_blocking=True)  # expect: XST201
            done = torch.npu.Event()
            done.record(self.stream)  # expect: XST103

        return hook

    def on_step_end(self, trainer) -> None:
        for h in self.hooks:
            h.remove()
        self.hooks.clear()
        if not self.stream.query():  # expect: XST102
            torch.npu.synchronize()
