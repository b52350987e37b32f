"""Thin binding to the vendor's decode runtime (a C library owning its own streams)."""

import ctypes
import os

_LIB = None


def _lib():
    global _LIB
    if _LIB is None:
        _LIB = ctypes.CDLL(os.environ.get("DECODE_RT", "libdecode_rt.so"))
        _LIB.drt_stream_create.restype = ctypes.c_void_p
    return _LIB


class DecodeRuntime:
    """Owns the aclrtStream handles the decode kernels run on."""

    def __init__(self, device: int):
        self.device = device
        self._handles = []

    def new_stream(self) -> int:
        raw = _lib().drt_stream_create(ctypes.c_int(self.device))
        self._handles.append(raw)
        return int(raw)

    def raw_stream(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(_lib().drt_stream_create(ctypes.c_int(self.device)))

    def fence(self, handle: int) -> None:
        _lib().drt_stream_sync(ctypes.c_void_p(handle))
