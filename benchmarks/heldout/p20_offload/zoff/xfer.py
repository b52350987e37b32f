"""Copy helpers shared by the engine; flags come in through **kwargs."""

import torch

ASYNC = {"non_blocking": True}
SYNC = {"non_blocking": False}


def copy_into(dst: torch.Tensor, src: torch.Tensor, **kw) -> torch.Tensor:
    dst.copy_(src, **kw)
    return dst


def upload(t: torch.Tensor, device: str = "npu:0", **kw) -> torch.Tensor:
    return t.to(device, **kw)
