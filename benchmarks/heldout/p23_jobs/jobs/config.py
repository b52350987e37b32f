"""Lanes built from configuration: dataclass specs matched by shape, TypedDicts, factory names."""

from dataclasses import dataclass
from typing import Any, TypedDict

import torch
import torch_npu  # noqa: F401


@dataclass(frozen=True)
class LaneSpec:
    kind: str
    handle: int = 0
    device: int = 0


def build_lane(spec: LaneSpec):
    match spec:
        case LaneSpec(kind="external", handle=h, device=d):
            return torch.npu.ExternalStream(h, device=d)
        case LaneSpec(kind="pool", device=d):
            return torch.npu.Stream(device=d)
        case _:
            return torch.npu.current_stream()


def make(factory: str, **kwargs):
    """`make("ExternalStream", stream_ptr=h)`: a torch.npu stream class by name."""
    return getattr(torch.npu, factory)(**kwargs)


class JobConfig(TypedDict):
    lane: Any
    fence: bool


def finish(cfg: JobConfig) -> None:
    if cfg["fence"]:
        cfg["lane"].synchronize()


def lane_kwargs(handle: int) -> dict:
    return {"stream_ptr": handle, "device": 0}
