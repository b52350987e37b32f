import torch
from torch_npu.npu import ExternalStream


class Lanes:
    def __init__(self, h):
        self.lanes = {"prefill": torch.npu.Stream(), "decode": ExternalStream(h)}

    def idle(self, kind):
        return self.lanes[kind].query()
