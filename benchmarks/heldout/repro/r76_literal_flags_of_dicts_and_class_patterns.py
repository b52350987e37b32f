"""r76 (p23_jobs config.py, hovf): a helper testing ``cfg["fence"]`` of the caller's dict
display, and ``match spec: case LaneSpec(kind="external", handle=h):`` against the caller's
dataclass, were not learnt per literal (neither ``cfg["fence"]`` nor a class pattern's
keyword counted as testing the parameter), so ``fence: False`` and ``LaneSpec("pool")``
were reported. Fixed: both count (source/bodies.py), and the caller's literal decides."""

from dataclasses import dataclass
from typing import Any, TypedDict

import torch
import torch_npu


class JobConfig(TypedDict):
    lane: Any
    fence: bool


def finish(cfg: JobConfig) -> None:
    if cfg["fence"]:
        cfg["lane"].synchronize()


@dataclass(frozen=True)
class LaneSpec:
    kind: str
    handle: int = 0


def build_lane(spec: LaneSpec):
    match spec:
        case LaneSpec(kind="external", handle=h):
            return torch_npu.npu.ExternalStream(h)
        case _:
            return torch.npu.Stream()


def run(handle):
    lane = torch_npu.npu.ExternalStream(handle)
    finish({"lane": lane, "fence": True})  # expect: XST101
    finish({"lane": lane, "fence": False})
    build_lane(LaneSpec("external", handle)).synchronize()  # expect: XST101
    build_lane(LaneSpec("pool")).synchronize()
