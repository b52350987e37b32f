"""Stream kinds registered by decorator: name -> how to make one on a device."""

from dataclasses import dataclass
from typing import Callable, Dict

import torch
import torch_npu

from .comm import comm_handle


@dataclass(frozen=True)
class StreamSpec:
    name: str
    make: Callable[[int], object]
    external: bool = False
    priority: int = 0


_SPECS: Dict[str, StreamSpec] = {}


def stream_kind(name: str, *, external: bool = False, priority: int = 0):
    def deco(fn: Callable[[int], object]) -> Callable[[int], object]:
        _SPECS[name] = StreamSpec(name, fn, external=external, priority=priority)
        return fn

    return deco


@stream_kind("compute")
def _compute(device: int):
    return torch.npu.Stream(device=device)


@stream_kind("h2d", priority=-1)
def _h2d(device: int):
    return torch.npu.Stream(device=device, priority=-1)


@stream_kind("hccl", external=True)
def _hccl(device: int):
    return torch_npu.npu.ExternalStream(comm_handle(device), device=device)


def make_stream(name: str, device: int):
    return _SPECS[name].make(device)


def spec(name: str) -> StreamSpec:
    return _SPECS[name]


def managed_names():
    return [n for n, s in _SPECS.items() if not s.external]
