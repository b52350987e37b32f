"""Handles from the ring-allreduce library (it creates and owns its streams)."""

import ctypes
import os

_ring = ctypes.CDLL(os.environ.get("RING_LIB", "libring.so"))
_ring.ring_stream.restype = ctypes.c_uint64


def ring_stream_ptr(device: int) -> int:
    return int(_ring.ring_stream(device))
