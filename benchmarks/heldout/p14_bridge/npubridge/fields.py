"""Descriptors that give each decoder its stream."""

from typing import Any, Dict, Optional

import torch

from .handles import codec_stream, torch_stream


class CodecLane:
    """Class-level descriptor: every instance gets the codec's stream for its channel."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, objtype: Optional[type] = None) -> torch.npu.Stream:
        if obj is None:
            return self
        lane = obj.__dict__.get(self.slot)
        if lane is None:
            lane = codec_stream(obj.channel)
            obj.__dict__[self.slot] = lane
        return lane


class TorchLane:
    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, objtype: Optional[type] = None) -> torch.npu.Stream:
        if obj is None:
            return self
        return obj.__dict__.setdefault(self.slot, torch_stream())


class Validated:
    """Data descriptor: stores whatever stream is assigned, after a type check."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, objtype: Optional[type] = None):
        return self if obj is None else obj.__dict__[self.slot]

    def __set__(self, obj: Any, value) -> None:
        if not isinstance(value, torch.npu.Stream):
            raise TypeError(value)
        obj.__dict__[self.slot] = value


class Decoder:
    lane = CodecLane()
    spare = TorchLane()
    sink = Validated()

    def __init__(self, channel: int):
        self.channel = channel
        self.sink = codec_stream(channel)
        self._post = torch_stream()

    def flush(self) -> None:
        self.lane.synchronize()  # expect: XST101
        self.spare.synchronize()

    def drain_sink(self) -> None:
        self.sink.wait_event(torch.npu.Event())  # expect: XST104

    @property
    def post(self) -> torch.npu.Stream:
        return self._post

    @post.setter
    def post(self, value: torch.npu.Stream) -> None:
        self._post = value

    def finish_post(self) -> bool:
        return self.post.query()


def retarget(dec: Decoder, channel: int) -> None:
    dec.post = codec_stream(channel)
    dec.post.record_event()  # expect: XST103


def stats(decoders: Dict[int, Decoder]) -> Dict[int, bool]:
    return {ch: d.spare.query() for ch, d in decoders.items()}
