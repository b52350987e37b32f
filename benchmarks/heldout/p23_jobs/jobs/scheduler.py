"""The scheduler: fans jobs out over the vendor lane and torch_npu's own lanes."""

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor

import torch
import torch_npu  # noqa: F401

from .config import LaneSpec, build_lane, finish, lane_kwargs, make
from .runtime import LaneFeed, Lease, blocking_mark, fence, open_lane, open_side, probe


class Scheduler:
    def __init__(self, handle: int) -> None:
        self.handle = handle
        self.vendor = torch.npu.ExternalStream(**lane_kwargs(handle))
        self.side = torch.npu.Stream()
        self.pool = ThreadPoolExecutor(2)

    async def fan_out(self) -> None:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(fence(self.side))
            tg.create_task(fence(self.vendor))  # expect: XST101

    async def probe_all(self) -> list:
        lanes = [self.side, self.vendor]
        return await asyncio.gather(*(probe(lane) for lane in lanes))  # expect: XST102

    async def probe_side(self) -> bool:
        return await asyncio.wait_for(probe(self.side), timeout=1.0)

    async def offload(self):
        loop = asyncio.get_running_loop()
        quiet = await loop.run_in_executor(self.pool, functools.partial(blocking_mark, self.side))
        job = functools.partial(blocking_mark, self.vendor)  # or: XST103
        loud = await loop.run_in_executor(self.pool, job)  # expect: XST103
        return quiet, loud

    async def fence_in_thread(self) -> None:
        await asyncio.to_thread(self.side.synchronize)
        await asyncio.to_thread(self.vendor.synchronize)  # expect: XST101

    async def first_ready(self) -> None:
        for next_lane in asyncio.as_completed([open_lane(self.handle), open_side()]):
            lane = await next_lane
            lane.record_event()  # expect: XST103

    def on_open(self) -> asyncio.Task:
        task = asyncio.ensure_future(open_lane(self.handle))
        task.add_done_callback(lambda t: t.result().synchronize())  # expect: XST101
        side = asyncio.ensure_future(open_side())
        side.add_done_callback(lambda t: t.result().synchronize())
        return task

    async def batches(self) -> None:
        async for lane in LaneFeed([self.side, self.vendor]):
            lane.query()  # expect: XST102
        async for lane in LaneFeed([self.side, torch.npu.Stream()]):
            lane.query()

    async def leased(self, x, event):
        async with Lease(self.vendor):
            y = x * 2
            event.record()  # expect: XST103
        async with Lease(self.side):
            event.record()
            y = y + 1
        async with Lease(self.vendor):
            y = y.relu()
        return y

    def configured(self) -> None:
        build_lane(LaneSpec("external", handle=self.handle)).synchronize()  # expect: XST101
        build_lane(LaneSpec("pool", device=0)).synchronize()
        make("ExternalStream", stream_ptr=self.handle).query()  # expect: XST102
        make("Stream", priority=-1).query()
        finish({"lane": self.vendor, "fence": True})  # expect: XST101
        finish({"lane": self.vendor, "fence": False})
        finish({"lane": self.side, "fence": True})


async def serve(handle: int) -> None:
    s = Scheduler(handle)
    await s.fan_out()
    await s.probe_all()
    await s.probe_side()
    await s.offload()
    await s.fence_in_thread()
    await s.first_ready()
    s.on_open()
    await s.batches()
    await s.leased(torch.ones(2), torch.npu.Event())
    s.configured()
    torch.npu.synchronize()
    print(s.vendor.npu_stream, s.vendor.stream_id)


def main(handle: int) -> None:
    asyncio.run(serve(handle))
