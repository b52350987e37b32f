"""r82 (p26_kvswap swapper.py:93; hohz; open): ``ThreadPoolExecutor(initializer=bind_lane,
initargs=(lane,))`` makes the external stream current in each worker thread before any
submitted function runs; ``submit(fn)`` then copies pinned memory ``non_blocking=True`` there.
Executors are not followed as objects (their methods are known by name: flowmodels ``*.submit``
runs the function with no external stream current, as a new thread starts). Following it
needs the executor as a holder that keeps its initializer and its arguments, and ``submit`` /
``map`` running the function on what the initializer leaves current."""

from concurrent.futures import ThreadPoolExecutor

import torch
import torch_npu


def bind_lane(lane) -> None:
    torch.npu.set_stream(lane)


SLOT = torch.empty(8, pin_memory=True)


def upload(dst) -> None:
    dst.copy_(SLOT, non_blocking=True)  # expect: XST201


def main(handle: int, dst) -> None:
    lane = torch_npu.npu.ExternalStream(handle)
    pool = ThreadPoolExecutor(1, initializer=bind_lane, initargs=(lane,))
    pool.submit(upload, dst)
