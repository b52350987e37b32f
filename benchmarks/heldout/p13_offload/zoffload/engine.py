"""Top level: wires the offload engine; lanes forwarded with * and **."""

from typing import List

import torch

from . import streams
from .streams import comm_stream, prefetch_stream


def _step(model: torch.nn.Module, batch: torch.Tensor, lane, *, wait=None) -> torch.Tensor:
    if wait is not None:
        lane.wait_event(wait)  # or: XST104
    with torch.npu.stream(lane):
        return model(batch)


def run(model: torch.nn.Module, batch: torch.Tensor, ranks: List[int]) -> torch.Tensor:
    args = (model, batch, comm_stream(ranks[0]))
    return _step(*args, wait=torch.npu.Event())  # expect: XST104


def run_prefetch(model: torch.nn.Module, batch: torch.Tensor) -> torch.Tensor:
    args = (model, batch, prefetch_stream())
    return _step(*args, wait=torch.npu.Event())


def run_kw(model: torch.nn.Module, batch: torch.Tensor, rank: int) -> torch.Tensor:
    kw = dict(lane=comm_stream(rank), wait=torch.npu.Event())
    return _step(model, batch, **kw)  # expect: XST104


def setup(n: int) -> None:
    streams.init(n)
    streams.activate_comm(0)
