"""r82 (p26_kvswap swapper.py:93; hohz; fixed by hohz2, see r85): ``ThreadPoolExecutor(
initializer=bind_lane, initargs=(lane,))`` makes the external stream current in each worker
thread before any submitted function runs; ``submit(fn)`` then copies pinned memory
``non_blocking=True`` there. Executors were not followed as objects (``*.submit`` ran the
function with no external stream current, as a new thread starts). Now a pool is an object
that keeps what its initializer leaves current, and ``submit``/``map`` run the function on
it; the copy is on ``upload``'s caller's current stream, so it is reported at the ``submit``
(the placement rule), not in ``upload``."""

from concurrent.futures import ThreadPoolExecutor

import torch
import torch_npu


def bind_lane(lane) -> None:
    torch.npu.set_stream(lane)


SLOT = torch.empty(8, pin_memory=True)


def upload(dst) -> None:
    dst.copy_(SLOT, non_blocking=True)


def main(handle: int, dst) -> None:
    lane = torch_npu.npu.ExternalStream(handle)
    pool = ThreadPoolExecutor(1, initializer=bind_lane, initargs=(lane,))
    pool.submit(upload, dst)  # expect: XST201
