"""Stream handles from a vision codec SDK (it creates and owns its aclrtStreams)."""

import ctypes

import torch
import torch_npu

_SDK = ctypes.CDLL("libvcodec.so")
_SDK.vc_get_stream.restype = ctypes.c_void_p


def codec_stream(channel: int) -> torch.npu.Stream:
    return torch_npu.npu.ExternalStream(_SDK.vc_get_stream(ctypes.c_int(channel)))


def torch_stream() -> torch.npu.Stream:
    return torch.npu.Stream()
