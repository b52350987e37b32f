"""r81 (p26_kvswap swapper.py:122; hohz; open): a function makes its own external stream
current and copies ``non_blocking=True`` from a tensor its caller gives (here an attribute of
an object the caller passes). The copy is judged in the function as of unknown memory (XST211,
off by default); the guarded sinks that put XST201 at a call passing pinned memory
(copies.by_parameter) exist only for copies on the caller's current stream, because a sink is
keyed by the stream's parameter and this stream is the function's own."""

import torch
import torch_npu


class Pool:
    def __init__(self) -> None:
        self.one = torch.empty(8, pin_memory=True)


def upload(handle: int, pool: Pool):
    dst = torch.empty(8, device="npu")
    with torch.npu.stream(torch_npu.npu.ExternalStream(handle)):
        dst.copy_(pool.one, non_blocking=True)
    return dst


def main(handle: int) -> None:
    upload(handle, Pool())  # expect: XST201
