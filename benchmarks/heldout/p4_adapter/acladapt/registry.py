"""One torch stream per vendor handle, and conversions from what callers hold."""

import functools
import weakref
from typing import Union

import torch
import torch_npu

from .handles import StreamHandle

_views = weakref.WeakValueDictionary()


@functools.lru_cache(maxsize=64)
def stream_for(address: int, device: int = 0) -> torch.npu.Stream:
    return torch_npu.npu.ExternalStream(address, device=device)


@functools.singledispatch
def as_torch(obj) -> torch.npu.Stream:
    raise TypeError(f"cannot make a torch stream from {type(obj).__name__}")


@as_torch.register
def _(obj: StreamHandle) -> torch.npu.Stream:
    return stream_for(obj.address, obj.device)


@as_torch.register
def _(obj: int) -> torch.npu.Stream:
    return stream_for(obj)


@as_torch.register
def _(obj: torch.npu.Stream) -> torch.npu.Stream:
    return obj


def remember(key: str, stream: torch.npu.Stream) -> torch.npu.Stream:
    _views[key] = stream
    return stream


def lookup(key: str) -> Union[torch.npu.Stream, None]:
    return _views.get(key)


def sync_all(handles) -> None:
    for h in handles:
        as_torch(h).synchronize()


def copy_out(address: int, t: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(as_torch(address)):
        return t.to("cpu", non_blocking=True)  # expect: XST201


def copy_out_managed(t: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(as_torch(torch.npu.Stream())):
        return t.to("cpu", non_blocking=True)


def graph_on(address: int, g, fn, x):
    with torch.npu.graph(g, stream=stream_for(address)):  # expect: XST106
        return fn(x)


def mark_named(address: int, key: str):
    remember(key, as_torch(address))
    return lookup(key).record_event()  # expect: XST103


def main(address: int) -> None:
    sync_all([StreamHandle.from_address(address)])  # expect: XST101
    sync_all([torch.npu.Stream()])
