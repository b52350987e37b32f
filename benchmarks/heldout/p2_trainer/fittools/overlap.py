"""Streams named in the config file ("external:<dev>" for the collective library's stream)."""

import contextvars
from typing import Optional

import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream

_active: contextvars.ContextVar = contextvars.ContextVar("active_stream", default=None)


def stream_from_spec(spec: str, handle: Optional[int] = None):
    match spec.split(":"):
        case ["external", dev]:
            return ExternalStream(handle, device=int(dev))
        case ["managed", dev]:
            return torch.npu.Stream(device=int(dev))
        case _:
            raise ValueError(f"bad stream spec {spec!r}")


def activate(stream) -> None:
    _active.set(stream)


def active():
    return _active.get()


def reduce_bucket(bucket: torch.Tensor) -> None:
    stream = active()
    if stream is None:
        dist.all_reduce(bucket)
        return
    with torch.npu.stream(stream):
        dist.all_reduce(bucket)


def overlap_external(bucket: torch.Tensor, handle: int, ready: torch.npu.Event) -> None:
    activate(stream_from_spec("external:0", handle))
    active().wait_event(ready)  # expect: XST104
    reduce_bucket(bucket)  # expect: XST111


def overlap_managed(bucket: torch.Tensor, ready: torch.npu.Event) -> None:
    activate(stream_from_spec("managed:0"))
    active().wait_event(ready)
    reduce_bucket(bucket)


def flush_external(handle: int) -> None:
    s = stream_from_spec("external:1", handle)
    s.synchronize()  # expect: XST101
    stream_from_spec("managed:1").synchronize()
