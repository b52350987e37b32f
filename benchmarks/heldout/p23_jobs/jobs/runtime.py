"""Job primitives: coroutines and blocking helpers run on a lane."""

import asyncio

import torch
import torch_npu  # noqa: F401


async def fence(lane) -> None:
    await asyncio.sleep(0)
    lane.synchronize()


async def probe(lane) -> bool:
    return lane.query()


def blocking_mark(lane):
    return lane.record_event()


async def open_lane(handle: int):
    await asyncio.sleep(0)
    return torch.npu.ExternalStream(handle)


async def open_side():
    return torch.npu.Stream()


class LaneFeed:
    """An async iterator over lanes, one per request batch."""

    def __init__(self, lanes) -> None:
        self._lanes = list(lanes)
        self._i = 0

    def __aiter__(self) -> "LaneFeed":
        return self

    async def __anext__(self):
        if self._i >= len(self._lanes):
            raise StopAsyncIteration
        lane = self._lanes[self._i]
        self._i += 1
        return lane


class Lease:
    """`async with Lease(lane):` makes the lane current for the body."""

    def __init__(self, lane) -> None:
        self.lane = lane
        self.prev = None

    async def __aenter__(self) -> "Lease":
        self.prev = torch.npu.current_stream()
        torch.npu.set_stream(self.lane)
        return self

    async def __aexit__(self, *exc) -> None:
        torch.npu.set_stream(self.prev)
