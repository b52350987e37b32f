"""r83 (p23_jobs scheduler.py:75, hovf2): ``build_lane(LaneSpec("pool"))`` of another
module whose body matches the spec's string field (``case LaneSpec(kind="external")``) or
compares it (``spec.kind == "pool"``). Its module exported copies of a parameter's
attribute for enum members and ``True``/``False`` only, so the caller read the "may be" of
every case (a false alarm). Fixed: the copies of an attribute include the string and
integer literals the body compares it with, by class pattern or comparison
(source/compared.py, interp/variants.py)."""

from dataclasses import dataclass

import torch
import torch_npu


@dataclass(frozen=True)
class LaneSpec:
    kind: str
    handle: int = 0


def build_lane(spec: LaneSpec):
    match spec:
        case LaneSpec(kind="external", handle=h):
            return torch.npu.ExternalStream(h)
        case LaneSpec(kind="pool"):
            return torch.npu.Stream()
        case _:
            return torch.npu.current_stream()


def compared_lane(spec: LaneSpec):
    if spec.kind == "external":
        return torch.npu.ExternalStream(spec.handle)
    return torch.npu.Stream()
