"""Async offload pipeline: lanes come from an async generator, steps run on them."""

import asyncio
from typing import AsyncIterator, List

import torch

from .streams import comm_stream, prefetch_stream


async def comm_lanes_async(ranks: List[int]) -> AsyncIterator[torch.npu.Stream]:
    for r in ranks:
        await asyncio.sleep(0)
        yield comm_stream(r)


async def prefetch_lanes_async(n: int) -> AsyncIterator[torch.npu.Stream]:
    for _ in range(n):
        await asyncio.sleep(0)
        yield prefetch_stream()


async def drain(ranks: List[int]) -> None:
    async for s in comm_lanes_async(ranks):
        s.synchronize()  # expect: XST101


async def drain_prefetch(n: int) -> None:
    async for s in prefetch_lanes_async(n):
        s.synchronize()


async def first_lane(ranks: List[int]) -> None:
    gen = comm_lanes_async(ranks)
    s = await gen.__anext__()
    s.query()  # expect: XST102


def staged(ranks: List[int]):
    ack = yield comm_stream(ranks[0])
    while ack:
        ack = yield comm_stream(ranks[ack % len(ranks)])


def drive(ranks: List[int]) -> None:
    gen = staged(ranks)
    s = next(gen)
    s.record_event()  # expect: XST103
    s = gen.send(1)
    s.wait_event(torch.npu.Event())  # expect: XST104


def offload_params(params: List[torch.Tensor], ranks: List[int]) -> List[torch.Tensor]:
    host = [torch.empty_like(p, device="cpu").pin_memory() for p in params]
    for p, h, s in zip(params, host, (comm_stream(r) for r in ranks), strict=True):
        with torch.npu.stream(s):
            h.copy_(p, non_blocking=True)  # expect: XST201
    return host


def offload_params_prefetch(params: List[torch.Tensor]) -> List[torch.Tensor]:
    host = [torch.empty_like(p, device="cpu").pin_memory() for p in params]
    for p, h in zip(params, host, strict=True):
        with torch.npu.stream(prefetch_stream()):
            h.copy_(p, non_blocking=True)
    return host
