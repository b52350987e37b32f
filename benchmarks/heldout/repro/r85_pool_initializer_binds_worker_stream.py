"""r85 (p26_kvswap swapper.py:93/100; hohz2; fixed): an executor made in ``__init__`` with
``ThreadPoolExecutor(1, initializer=bind_lane, initargs=(self.lane,))`` and used by another
method, ``self.uploader.submit(self._upload, i, dst)``. Each worker thread calls the
initializer before any submitted function, so the lane is current there. Executors and
``multiprocessing`` thread pools are now objects (flow-model kind ``workers``): the pool runs
its initializer once where it is made, from a thread's start (no external stream current),
keeps what it leaves current, and ``submit``/``map``/``apply``... run the function on it. The
copy in ``_upload`` is on its caller's current stream: reported at the call that runs it (the
placement rule), here the ``submit`` (conformance hazard_flow/executor_initializer_lane,
executor_initializer_map, thread_pool_initializer_apply, thread_pool_initializer_map)."""

from concurrent.futures import ThreadPoolExecutor
from multiprocessing.pool import ThreadPool

import torch
import torch_npu


def bind_lane(lane) -> None:
    torch.npu.set_stream(lane)


class Uploader:
    def __init__(self, handle: int) -> None:
        self.lane = torch_npu.npu.ExternalStream(handle)
        self.pinned = torch.empty(8, pin_memory=True)
        self.uploader = ThreadPoolExecutor(1, initializer=bind_lane, initargs=(self.lane,))
        self.side = ThreadPoolExecutor(1, initializer=bind_lane, initargs=(torch.npu.Stream(),))

    def _upload(self, dst) -> None:
        dst.copy_(self.pinned, non_blocking=True)

    def prefetch(self, dst):
        return self.uploader.submit(self._upload, dst)  # expect: XST201

    def prefetch_side(self, dst):
        return self.side.submit(self._upload, dst)


def upload(dst, host) -> None:
    dst.copy_(host, non_blocking=True)


def thread_pool(handle: int, dst) -> None:
    with ThreadPool(2, bind_lane, (torch_npu.npu.ExternalStream(handle),)) as pool:
        pool.apply(upload, (dst, torch.empty(8, pin_memory=True)))  # expect: XST201
