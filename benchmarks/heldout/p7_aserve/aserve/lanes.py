"""A pool of decode lanes leased with `async with`."""

import asyncio
import contextlib
from typing import List

import torch
import torch.distributed as dist
import torch_npu


class LanePool:
    def __init__(self, handles: List[int], device: int = 0):
        self._free: asyncio.Queue = asyncio.Queue()
        for h in handles:
            self._free.put_nowait(torch_npu.npu.ExternalStream(h, device=device))

    @contextlib.asynccontextmanager
    async def lease(self):
        s = await self._free.get()
        try:
            with torch.npu.stream(s):
                yield s
        finally:
            self._free.put_nowait(s)

    async def step(self, model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
        async with self.lease() as s:
            s.wait_stream(torch.npu.default_stream())  # expect: XST104
            return model(x)

    async def gather(self, x: torch.Tensor, group=None) -> torch.Tensor:
        async with self.lease():
            dist.all_reduce(x, group=group)  # expect: XST111
        return x


class ManagedLane:
    def __init__(self, device: int = 0):
        self.s = torch.npu.Stream(device=device)

    async def __aenter__(self):
        self._ctx = torch.npu.stream(self.s)
        self._ctx.__enter__()
        return self.s

    async def __aexit__(self, *exc):
        self._ctx.__exit__(*exc)
        return False


class RuntimeLane(ManagedLane):
    def __init__(self, handle: int, device: int = 0):
        super().__init__(device)
        self.s = torch_npu.npu.ExternalStream(handle, device=device)


async def lane_step(lane: ManagedLane, x: torch.Tensor) -> torch.Tensor:
    async with lane as s:
        y = x * 2
        s.synchronize()  # maybe: XST101
    return y
