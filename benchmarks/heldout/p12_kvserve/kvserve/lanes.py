"""Streams for the KV server: attention lanes belong to the paged-attention runtime (a C
library with its own aclrtStream handles), copy lanes are ordinary torch_npu streams."""

import ctypes
import os
import weakref
from typing import List

import torch
import torch_npu

_RT = None


def _rt() -> ctypes.CDLL:
    global _RT
    if _RT is None:
        _RT = ctypes.CDLL(os.environ.get("PAGED_ATTN_RT", "libpaged_attn.so"))
        _RT.pa_stream_create.restype = ctypes.c_void_p
    return _RT


def attention_stream(device: int) -> torch.npu.Stream:
    handle = _rt().pa_stream_create(ctypes.c_int(device))
    return torch_npu.npu.ExternalStream(handle, device=device)


def copy_stream(device: int) -> torch.npu.Stream:
    return torch.npu.Stream(device=device)


# name -> live stream; entries vanish with the last lane that holds them
LIVE = weakref.WeakValueDictionary()


class AttentionLane:
    """One runtime stream per lane; observers hold it weakly."""

    def __init__(self, device: int):
        self.device = device
        self._stream = attention_stream(device)
        self._ref = weakref.ref(self._stream)
        self.view = weakref.proxy(self._stream)
        LIVE["attention"] = self._stream

    def flush(self) -> None:
        s = self._ref()
        if s is not None:
            s.synchronize()  # expect: XST101

    def idle(self) -> bool:
        return self.view.query()  # expect: XST102


class CopyLane:
    def __init__(self, device: int):
        self.device = device
        self._stream = copy_stream(device)
        self._ref = weakref.ref(self._stream)
        self.view = weakref.proxy(self._stream)
        LIVE["copy"] = self._stream

    def flush(self) -> None:
        s = self._ref()
        if s is not None:
            s.synchronize()

    def idle(self) -> bool:
        return self.view.query()


def all_attention(devices: List[int]) -> List[torch.npu.Stream]:
    return [attention_stream(d) for d in devices]
