"""Where lanes come from: the video decoder's streams, or torch_npu's pool."""

import ctypes
from typing import Iterator, List

import torch
import torch_npu  # noqa: F401

_dvpp = ctypes.CDLL("libdvpp_decode.so")
_dvpp.dvpp_channel_stream.restype = ctypes.c_void_p


def decoder_streams(n: int, device: int = 0) -> List["torch.npu.ExternalStream"]:
    return [
        torch.npu.ExternalStream(_dvpp.dvpp_channel_stream(ch), device=device) for ch in range(n)
    ]


def staging_streams(n: int, device: int = 0) -> List["torch.npu.Stream"]:
    return [torch.npu.Stream(device=device) for _ in range(n)]


def decoder_lanes(n: int) -> Iterator["torch.npu.ExternalStream"]:
    yield from decoder_streams(n)


def staging_lanes(n: int) -> Iterator["torch.npu.Stream"]:
    yield from staging_streams(n)


def all_lanes(n: int) -> Iterator["torch.npu.Stream"]:
    yield from decoder_lanes(n)
    yield from staging_lanes(n)


def reserved_channels(n: int) -> List[int]:
    """Channels opened at start-up; their streams are wrapped only when a channel is used."""
    return [_dvpp.dvpp_channel_stream(ch) for ch in range(n)]


def pick_lane(kind: str, index: int = 0):
    if kind == "decoder":
        return decoder_streams(index + 1)[index]
    if kind == "staging":
        return staging_streams(index + 1)[index]
    return None
