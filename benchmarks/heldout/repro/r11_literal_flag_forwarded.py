# a literal flag decides the stream in a helper, but is forwarded through one more parameter:
# reported in the middle function with "may be" (and for the False caller too)
import torch
from torch_npu.npu import ExternalStream


def make(external, h):
    if external:
        return ExternalStream(h)
    return torch.npu.Stream()


def direct(h):
    make(True, h).synchronize()  # expect: XST101 (found)
    make(False, h).synchronize()  # silent (ok)


def f(external, h):
    make(external, h).synchronize()


def g(h):
    f(True, h)  # expect: XST101
    f(False, h)
