"""Metaclass that gives every session a lane at construction, and callable stages."""

from typing import ClassVar, Dict

import torch

from .handles import codec_stream, torch_stream


class SessionMeta(type):
    _pool: ClassVar[Dict[int, torch.npu.Stream]] = {}

    def __call__(cls, channel: int, *args, **kwargs):
        inst = super().__call__(channel, *args, **kwargs)
        if channel not in SessionMeta._pool:
            SessionMeta._pool[channel] = codec_stream(channel)
        inst.lane = SessionMeta._pool[channel]
        return inst


class Session(metaclass=SessionMeta):
    def __init__(self, channel: int):
        self.channel = channel

    def close(self) -> None:
        self.lane.synchronize()  # expect: XST101


class LocalSession:
    def __init__(self, channel: int):
        self.channel = channel
        self.lane = torch_stream()

    def close(self) -> None:
        self.lane.synchronize()


class OnLane:
    """A stage object: calling it runs the function on its lane and marks completion."""

    def __init__(self, lane: torch.npu.Stream, fn):
        self.lane = lane
        self.fn = fn

    def __call__(self, *args):
        with torch.npu.stream(self.lane):
            out = self.fn(*args)
        self.lane.record_event()  # or: XST103
        return out


def build_stages(channel: int):
    decode = OnLane(codec_stream(channel), lambda x: x.float())  # expect: XST103
    resize = OnLane(torch_stream(), lambda x: x[..., ::2, ::2])
    return decode, resize


def run_decode(frame: torch.Tensor, channel: int) -> torch.Tensor:
    decode, resize = build_stages(channel)
    return resize(decode(frame))  # or: XST103


def open_session(channel: int) -> Session:
    s = Session(channel)
    s.lane.query()  # expect: XST102
    return s
