"""r62 (p15_plugserve app.py:25, flowfam3): ``dataclasses.replace(cfg, max_batch=n)`` in a
helper given the caller's object returned nothing (``replace`` of a parameter was not an
object), so the stream the caller's config held was lost. Fixed: the replace of a parameter
is the caller's object with the named fields changed once the call binds it
(interp/objects.py, interp/summaries.py)."""

import dataclasses
from typing import Any

import torch
import torch_npu


@dataclasses.dataclass(frozen=True)
class LaneConfig:
    name: str
    stream: Any = None
    max_batch: int = 8


def widened(cfg: LaneConfig, n: int) -> LaneConfig:
    return dataclasses.replace(cfg, max_batch=n)


def with_stream(cfg: LaneConfig, stream: Any) -> LaneConfig:
    return dataclasses.replace(cfg, stream=stream)


def main(handle: int) -> None:
    base = LaneConfig("decode", torch_npu.npu.ExternalStream(handle))
    widened(base, 64).stream.wait_stream(torch.npu.current_stream())  # expect: XST104
    with_stream(base, torch.npu.Stream()).stream.wait_stream(torch.npu.current_stream())
