"""Copies and reductions handed to a thread pool."""

import functools
import operator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

import torch
import torch.distributed as dist

from .pool import DevicePool


def _reduce_on(stream, tensor: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(stream):
        dist.all_reduce(tensor)
    return tensor


def _record_on(stream, ev: torch.npu.Event) -> None:
    ev.record(stream)


class Jobs:
    def __init__(self, device: int):
        self.pool = DevicePool.for_device(device)
        self.executor = ThreadPoolExecutor(max_workers=2)
        self.pending: List[Future] = []

    def reduce_async(self, tensor: torch.Tensor) -> Future:
        job = functools.partial(_reduce_on, self.pool.get("hccl"), tensor)  # or: XST111
        fut = self.executor.submit(job)  # expect: XST111
        self.pending.append(fut)
        return fut

    def reduce_local(self, tensor: torch.Tensor) -> Future:
        job = functools.partial(_reduce_on, self.pool.get("compute"), tensor)
        return self.executor.submit(job)

    def signal(self, ev: torch.npu.Event) -> None:
        self.executor.submit(_record_on, self.pool.get("hccl"), ev)  # expect: XST103

    def signal_copy(self, ev: torch.npu.Event) -> None:
        self.executor.submit(_record_on, self.pool.get("h2d"), ev)

    def wait_comm(self, ev: torch.npu.Event) -> None:
        wait = operator.methodcaller("wait_event", ev)
        self.executor.submit(wait, self.pool.get("hccl"))  # expect: XST104

    def wait_compute(self, ev: torch.npu.Event) -> None:
        wait = operator.methodcaller("wait_event", ev)
        self.executor.submit(wait, self.pool.get("compute"))

    def finish(self) -> None:
        for fut in self.pending:
            fut.result()
        self.pool.sync()
