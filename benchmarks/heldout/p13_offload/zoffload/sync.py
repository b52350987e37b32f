"""Barriers over lanes: a lane list goes through the usual builtins and itertools."""

import functools
import itertools
from typing import List

import torch

from . import streams
from .streams import comm_lanes, comm_stream, each_lane, prefetch_lanes, prefetch_stream


def barrier_comm() -> None:
    for s in comm_lanes():
        s.synchronize()  # expect: XST101


def barrier_prefetch() -> None:
    for s in prefetch_lanes():
        s.synchronize()


def all_idle() -> bool:
    return all(s.query() for s in each_lane())  # expect: XST102


def first_busy(ranks: List[int]) -> int:
    lanes = [comm_stream(r) for r in ranks]
    for i, s in enumerate(lanes):
        if not s.query():  # expect: XST102
            return i
    return -1


def pair_wait(ranks: List[int], events: List[torch.npu.Event]) -> None:
    lanes = [comm_stream(r) for r in ranks]
    for s, ev in zip(lanes, events, strict=True):
        s.wait_event(ev)  # expect: XST104


def pair_wait_prefetch(events: List[torch.npu.Event]) -> None:
    lanes = [prefetch_stream() for _ in events]
    for s, ev in zip(lanes, events, strict=True):
        s.wait_event(ev)


def last_lane_sync(ranks: List[int]) -> None:
    lanes = sorted((comm_stream(r) for r in ranks), key=id)
    lanes[-1].synchronize()  # expect: XST101


def reversed_sync(ranks: List[int]) -> None:
    for s in reversed([comm_stream(r) for r in ranks]):
        s.synchronize()  # expect: XST101


def chained(ranks: List[int]) -> None:
    for s in itertools.chain([comm_stream(ranks[0])], (comm_stream(r) for r in ranks[1:])):
        s.record_event()  # expect: XST103


def chained_prefetch(n: int) -> None:
    for s in itertools.chain([prefetch_stream()], (prefetch_stream() for _ in range(n))):
        s.record_event()


def round_robin(ranks: List[int], steps: int) -> None:
    lanes = itertools.cycle([comm_stream(r) for r in ranks])
    for s in itertools.islice(lanes, steps):
        s.wait_event(torch.npu.Event())  # expect: XST104


def grouped(ranks: List[int]) -> None:
    pairs = [(r % 2, comm_stream(r)) for r in ranks]
    for _, group in itertools.groupby(sorted(pairs, key=lambda p: p[0]), key=lambda p: p[0]):
        for _, s in group:
            s.synchronize()  # expect: XST101


def fold_events(ranks: List[int]) -> torch.npu.Event:
    lanes = list(map(comm_stream, ranks))
    start = torch.npu.Event()
    return functools.reduce(lambda ev, s: s.record_event(ev), lanes, start)  # expect: XST103


def busiest(ranks: List[int]) -> None:
    lanes = list(filter(None, [comm_stream(r) for r in ranks]))
    max(lanes, key=lambda s: s.priority).synchronize()  # expect: XST101


def quietest() -> None:
    min(list(prefetch_lanes()), key=lambda s: s.priority).synchronize()


def sync_active() -> None:
    streams.ACTIVE.synchronize()  # expect: XST101
