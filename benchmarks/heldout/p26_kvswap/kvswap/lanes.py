"""Per-thread lanes: a worker binds its stream once and keeps it."""

import threading

import torch
import torch_npu  # noqa: F401

_local = threading.local()


def bind_lane(lane) -> None:
    """Make `lane` the calling thread's current stream for the rest of its life."""
    torch.npu.set_stream(lane)
    _local.lane = lane


def kv_lane(runtime, device: int = 0):
    return torch.npu.ExternalStream(runtime.kv_stream(device), device=device)


def cuda_kv_lane(runtime, device: int = 0):
    return torch.cuda.ExternalStream(runtime.kv_stream(device), device=device)
