"""The program of `interop.py`, written the way torch_npu supports external streams."""

import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream


def run(handle: int, model, x, g):
    ext = ExternalStream(handle)
    with torch.npu.stream(ext):
        y = model(x)
    torch.npu.synchronize()  # device-wide: covers the external stream
    dist.all_reduce(y)
    with torch.npu.graph(g):  # capture on torch_npu's own capture stream
        model(x)
    with torch.npu.stream(ext):
        g.replay()  # replay on the external stream works
    return y
