# a caller's literal picks the dict entry in the callee: reported in the callee as "may be"
import torch
from torch_npu.npu import ExternalStream


class Lanes:
    def __init__(self, h):
        self.lanes = {"prefill": torch.npu.Stream(), "decode": ExternalStream(h)}

    def idle(self, kind):
        return self.lanes[kind].query()


def busy(h):
    lanes = Lanes(h)
    return lanes.idle("prefill"), lanes.idle("decode")  # expect: XST102


def direct(h):
    lanes = Lanes(h)
    return lanes.lanes["prefill"].query()
