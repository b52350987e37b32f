"""Forward hooks and callable gradient synchronizers."""

import threading
from typing import Callable

import torch
import torch.distributed as dist

from .bank import StreamBank
from .comm import CommContext


class GradSync:
    """Called with a parameter's gradient; reduces it on the given stream."""

    def __init__(self, stream):
        self.stream = stream

    def __call__(self, grad: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.stream):
            dist.all_reduce(grad)  # maybe: XST111
        return grad


def install_grad_sync(model: torch.nn.Module, device: int) -> None:
    sync = GradSync(StreamBank(device).comm)  # expect: XST111
    for p in model.parameters():
        p.register_hook(sync)  # or: XST111


def install_local_sync(model: torch.nn.Module, device: int) -> None:
    sync = GradSync(StreamBank(device).side)
    for p in model.parameters():
        p.register_hook(sync)


def mark_outputs(model: torch.nn.Module, device: int) -> Callable:
    bank = StreamBank(device)

    def hook(module, inputs, output):
        output.record_stream(bank.comm)  # expect: XST105

    return model.register_forward_hook(hook)


def background_flush(ctx: CommContext) -> threading.Thread:
    t = threading.Thread(target=ctx.stream.synchronize, daemon=True)  # expect: XST101
    t.start()  # or: XST101
    return t


def background_reduce(ctx: CommContext, t: torch.Tensor) -> threading.Thread:
    th = threading.Thread(target=ctx.reduce_outside, args=(t,))
    th.start()
    return th
