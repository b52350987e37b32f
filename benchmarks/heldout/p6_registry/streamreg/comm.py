"""ctypes bindings to the collective library: it owns one stream per device."""

import ctypes

_lib = ctypes.CDLL("libhcomm_ext.so")
_lib.hcomm_get_stream.restype = ctypes.c_uint64
_lib.hcomm_get_stream.argtypes = [ctypes.c_int]


def comm_handle(device: int) -> int:
    return int(_lib.hcomm_get_stream(device))


def vendor_stream(device: int) -> int:
    return int(_lib.hcomm_get_stream(device + 64))
