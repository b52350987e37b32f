# __init__ stores the caller's pinned loader and copies its first batch under the caller's stream:
# reported at p.next() (a later call) but not at the constructor call, which runs it first
import torch
from torch.utils.data import DataLoader
from torch_npu.npu import ExternalStream


class P:
    def __init__(self, loader, stream):
        self.it = iter(loader)
        self.s = stream
        self._preload()

    def _preload(self):
        host = next(self.it)
        with torch.npu.stream(self.s):
            self.b = host["x"].to("npu", non_blocking=True)

    def next(self):
        self._preload()


def main(h, ds):
    p = P(DataLoader(ds, pin_memory=True), ExternalStream(h))  # expect: XST201
    p.next()  # expect: XST201
