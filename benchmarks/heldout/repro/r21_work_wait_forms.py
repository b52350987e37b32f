# Work.wait() while an external stream is current, for works from batch_isend_irecv (a list)
import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream


def from_batch(h, ops):
    works = dist.batch_isend_irecv(ops)
    with torch.npu.stream(ExternalStream(h)):
        for w in works:
            w.wait()  # expect: XST111


def from_irecv(h, buf):
    w = dist.irecv(buf, src=0)
    with torch.npu.stream(ExternalStream(h)):
        w.wait()  # expect: XST111 (found?)


def with_stream_cm(h, buf):
    w = dist.irecv(buf, src=0)
    with ExternalStream(h):
        w.wait()  # expect: XST111 (found?)
