# every call in the module names the managed entry: nothing to report (was a "may be" at the
# query; p6 pool.py:33 family, same-module half)
import torch
from torch_npu.npu import ExternalStream


class Lanes:
    def __init__(self, h):
        self.lanes = {"prefill": torch.npu.Stream(), "decode": ExternalStream(h)}

    def idle(self, kind):
        return self.lanes[kind].query()


def negative(h):
    return Lanes(h).idle("prefill")
