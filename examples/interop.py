"""A bundled example: running torch ops on a stream created by another library.

`extstream-lint examples/` flags the misuse below; `examples/interop_fixed.py` is the
same program written the way torch_npu supports.
"""

import torch
import torch.distributed as dist
import torch_npu
from torch_npu.npu import ExternalStream


def run(handle: int, model, x, g):
    ext = ExternalStream(handle)  # handle: the aclrtStream of another library
    with torch.npu.stream(ext):
        y = model(x)  # launching ops on the external stream is fine
        done = torch.npu.current_stream().record_event()  # XST103
        dist.all_reduce(y)  # XST111
    y.record_stream(ext)  # XST105
    ext.synchronize()  # XST101
    with torch.npu.graph(g, stream=ext):  # XST106
        model(x)
    return y, done


def unsafe_defaults():
    s = torch_npu.npu.ExternalStream(0)  # XST001
    return s
