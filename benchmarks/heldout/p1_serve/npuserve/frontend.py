"""asyncio front-end: requests arrive here, batches run in the executor."""

import asyncio
import contextlib
from typing import List

import torch
import torch.distributed as dist

from .engine import Request
from .pool import StreamManager
from .scheduler import Scheduler


@contextlib.asynccontextmanager
async def decode_lane(streams: StreamManager):
    lane = streams.lanes["decode"]
    prev = torch.npu.current_stream()
    torch.npu.set_stream(lane)
    try:
        yield lane
    finally:
        torch.npu.set_stream(prev)


class Frontend:
    def __init__(self, sched: Scheduler, device: int):
        self.sched = sched
        self.own = StreamManager(device)
        self.loop = asyncio.get_event_loop()

    async def generate(self, req: Request) -> List[torch.Tensor]:
        self.sched.submit(req)
        await self.loop.run_in_executor(None, self.sched.step)
        return req.out

    async def stream_logprobs(self, logits: torch.Tensor) -> torch.Tensor:
        async with decode_lane(self.own):
            probs = logits.log_softmax(-1)
            marker = torch.npu.Event()
            marker.record()  # expect: XST103
        return probs

    def gather_stats(self, stats: torch.Tensor, world: int) -> torch.Tensor:
        out = torch.empty(world * stats.numel(), device=stats.device)
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.npu.stream(self.own.lanes["decode"]))
            dist.all_gather_into_tensor(out, stats)  # expect: XST111
        return out

    def gather_stats_managed(self, stats: torch.Tensor, world: int) -> torch.Tensor:
        out = torch.empty(world * stats.numel(), device=stats.device)
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.npu.stream(self.own.lanes["prefill"]))
            dist.all_gather_into_tensor(out, stats)
        return out

    def health(self) -> bool:
        lane = self.own.lanes["decode"]
        torch.accelerator.set_stream(lane)
        try:
            return torch.accelerator.current_stream().query()  # expect: XST102
        finally:
            torch.accelerator.set_stream(torch.npu.default_stream())

    def health_managed(self) -> bool:
        lane = self.own.lanes["prefill"]
        with lane:
            return torch.npu.current_stream().query()
