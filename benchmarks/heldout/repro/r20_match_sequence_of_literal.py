# `match spec.split(":")` with sequence patterns: the literal spec does not pick the case
import torch
from torch_npu.npu import ExternalStream


def from_spec(spec, h=None):
    match spec.split(":"):
        case ["external", dev]:
            return ExternalStream(h, device=int(dev))
        case ["managed", dev]:
            return torch.npu.Stream(device=int(dev))
    raise ValueError(spec)


def from_kind(kind, h=None):
    if kind == "external":
        return ExternalStream(h)
    return torch.npu.Stream()


def positive(h):
    from_spec("external:0", h).synchronize()  # expect: XST101
    from_kind("external", h).synchronize()  # expect: XST101


def negative(h):
    from_spec("managed:0").synchronize()
    from_kind("managed").synchronize()
