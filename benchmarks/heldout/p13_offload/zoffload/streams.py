"""Where streams come from: the collective library's comm streams (wrapped handles) and
torch_npu's own streams for parameter prefetch."""

import ctypes
from typing import Iterator, List

import torch
import torch_npu

_COMM = ctypes.CDLL("libzcomm.so")
_COMM.zc_stream.restype = ctypes.c_void_p

_comm_streams: List[torch.npu.Stream] = []
_prefetch_streams: List[torch.npu.Stream] = []
ACTIVE = None


def comm_stream(rank: int) -> torch.npu.Stream:
    return torch_npu.npu.ExternalStream(_COMM.zc_stream(ctypes.c_int(rank)))


def prefetch_stream() -> torch.npu.Stream:
    return torch.npu.Stream()


def init(n: int) -> None:
    for r in range(n):
        _comm_streams.append(comm_stream(r))
        _prefetch_streams.append(prefetch_stream())


def comm_lanes() -> Iterator[torch.npu.Stream]:
    yield from _comm_streams


def prefetch_lanes() -> Iterator[torch.npu.Stream]:
    yield from _prefetch_streams


def each_lane() -> Iterator[torch.npu.Stream]:
    for s in _comm_streams:
        if s is not None:
            yield s


def activate_comm(rank: int) -> None:
    global ACTIVE
    ACTIVE = comm_stream(rank)
