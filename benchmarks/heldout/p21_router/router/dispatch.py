"""Dispatch helpers: a fence coroutine fed by send(), borrowed lanes, nested stream scopes."""

import contextlib
from typing import Iterator

import torch
import torch_npu  # noqa: F401


def fence_sink():
    """A coroutine: each lane sent in is fenced before the next request runs."""
    fenced = 0
    while True:
        lane = yield fenced
        if lane is None:
            return
        lane.synchronize()
        fenced += 1


def tagger():
    """A coroutine that hands back an event marking the lane it was sent."""
    event = None
    while True:
        lane = yield event
        event = torch.npu.Event()
        event.record(lane)


@contextlib.contextmanager
def borrowed_lane(table, name: str) -> Iterator:
    lane = table[name]
    with torch.npu.stream(lane):
        yield lane


@contextlib.contextmanager
def pinned_current(lane) -> Iterator:
    prev = torch.npu.current_stream()
    torch.npu.set_stream(lane)
    try:
        yield lane
    finally:
        torch.npu.set_stream(prev)
