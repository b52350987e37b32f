"""Async batching: producers put (stream, tensor) on a queue, the consumer finishes them."""

import asyncio
from typing import List, Tuple

import torch

from .streams import RuntimeSession


class Batcher:
    def __init__(self, session: RuntimeSession, compute: torch.npu.Stream):
        self.session = session
        self.compute = compute
        self.inbox: asyncio.Queue[Tuple[object, torch.Tensor]] = asyncio.Queue(maxsize=64)
        self.outbox: asyncio.Queue[torch.Tensor] = asyncio.Queue()

    async def produce(self, xs: List[torch.Tensor]) -> None:
        for x in xs:
            await self.inbox.put((self.compute, x))

    async def produce_decode(self, xs: List[torch.Tensor]) -> None:
        for x in xs:
            await self.inbox.put((self.session.stream, x))

    async def consume(self) -> None:
        while True:
            stream, x = await self.inbox.get()
            x.record_stream(stream)  # expect: XST105
            await self.outbox.put(x)
            self.inbox.task_done()


class LocalBatcher:
    def __init__(self, device: int):
        self.stream = torch.npu.Stream(device=device)
        self.q: asyncio.Queue = asyncio.Queue()

    async def produce(self, x: torch.Tensor) -> None:
        self.q.put_nowait((self.stream, x))

    async def consume(self) -> torch.Tensor:
        stream, x = await self.q.get()
        x.record_stream(stream)
        return x
