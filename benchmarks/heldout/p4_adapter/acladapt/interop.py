"""Helpers application code calls."""

import ctypes

import torch
import torch_npu

from .events import Fence
from .handles import StreamHandle
from .view import TorchStreamView


def run_on(handle: StreamHandle, fn, *args, **kwargs):
    with TorchStreamView(handle):
        return fn(*args, **kwargs)


def matmul_then_sync(handle: StreamHandle, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    with TorchStreamView(handle) as view:
        c = a @ b
        view.barrier()
        ev = torch.npu.Event()
        ev.record()  # expect: XST103
    return c


def chain(src: StreamHandle, dst: StreamHandle) -> None:
    a, b = TorchStreamView(src), TorchStreamView(dst)
    b.wait_stream(a.torch_stream)  # expect: XST103|XST104


def quick_stream(address: int) -> torch.npu.Stream:
    # older callers pass the raw address; the stream_ptr keyword makes it external as well
    return torch.npu.Stream(stream_ptr=address)


def urgent_stream(address: int) -> torch.npu.Stream:
    return torch.npu.Stream(stream_ptr=address, priority=-1)  # expect: XST002


def legacy_stream(handle: StreamHandle) -> torch.npu.Stream:
    return torch_npu.npu.ExternalStream(handle.ptr)  # expect: XST001


def sync_launch(handle: StreamHandle):
    return torch_npu.npu.SyncLaunchStream(stream_ptr=int(handle))  # expect: XST002


def pinned_upload(handle: StreamHandle, host: torch.Tensor) -> torch.Tensor:
    staging = host.pin_memory()
    return run_on(handle, staging.to, "npu", non_blocking=True)  # expect: XST201


def managed_upload(host: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(torch.npu.Stream()):
        return host.pin_memory().to("npu", non_blocking=True)


def demo(address: int) -> None:
    h = StreamHandle.from_address(address)
    fence = Fence()
    fence.arm(TorchStreamView(h))
    s = quick_stream(address)
    s.synchronize()  # expect: XST101
    raw = ctypes.c_void_p(address)
    cuda_side = torch.cuda.ExternalStream(raw.value)
    cuda_side.synchronize()
