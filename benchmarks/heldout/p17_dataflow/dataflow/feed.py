"""The feed: generators that stage decoded frames under a lane, closures keeping the lane."""

import itertools
from typing import Iterable, Iterator

import torch

from dataflow.sources import decoder_streams, pick_lane, reserved_channels, staging_streams


def make_feeder(n: int):
    lanes = decoder_streams(n)
    current = None

    def switch(i: int) -> None:
        nonlocal current
        current = lanes[i % len(lanes)]

    def feed(frame: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(current):
            return frame.pin_memory().to("npu", non_blocking=True)  # expect: XST201

    return switch, feed


def make_staging_feeder(n: int):
    lanes = staging_streams(n)
    current = lanes[0]

    def switch(i: int) -> None:
        nonlocal current
        current = lanes[i % len(lanes)]

    def feed(frame: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(current):
            return frame.pin_memory().to("npu", non_blocking=True)

    return switch, feed


def counter_on(n: int):
    lanes = decoder_streams(n)
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        lanes[count % n].synchronize()  # expect: XST101
        return count

    return tick


def stage_frames(frames: Iterable[torch.Tensor], lanes) -> Iterator[torch.Tensor]:
    for frame, lane in zip(frames, itertools.cycle(lanes)):
        with torch.npu.stream(lane):
            yield frame.pin_memory().to("npu", non_blocking=True)


def staged_from_decoders(frames: Iterable[torch.Tensor], n: int) -> list:
    return list(stage_frames(frames, decoder_streams(n)))  # expect: XST201


def staged_from_pool(frames: Iterable[torch.Tensor], n: int) -> list:
    return list(stage_frames(frames, staging_streams(n)))


def chained(frames: Iterable[torch.Tensor]) -> Iterator[torch.Tensor]:
    yield from stage_frames(frames, staging_streams(2))


def pick_and_sync(kind: str) -> None:
    if (lane := pick_lane("decoder")) is not None:
        lane.synchronize()  # expect: XST101
    if (other := pick_lane("staging")) is not None:
        other.synchronize()


def open_channels(n: int) -> int:
    handles = reserved_channels(n)
    pool = staging_streams(len(handles))
    for lane in pool:
        lane.synchronize()
    return len(handles)


def cuda_reference(frames: Iterable[torch.Tensor]) -> list:
    lanes = [torch.cuda.Stream() for _ in range(2)]
    out = []
    for frame, lane in zip(frames, itertools.cycle(lanes)):
        with torch.cuda.stream(lane):
            out.append(frame.pin_memory().to("cuda", non_blocking=True))
        lane.synchronize()
    return out
