"""Stream helpers: a context manager that makes a stream current, and lazily made sessions."""

import functools
from typing import Optional

import torch
import torch_npu


class use_stream:
    """Like torch.npu.stream(), but usable across an await (keeps the previous stream)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev = None

    def __enter__(self):
        self.prev = torch.npu.current_stream()
        torch.npu.set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc) -> bool:
        torch.npu.set_stream(self.prev)
        return False


class RuntimeSession:
    """A session of the decode runtime; its stream is created on first use."""

    def __init__(self, handle: int, device: int = 0):
        self.handle = handle
        self.device = device

    @functools.cached_property
    def stream(self):
        return torch_npu.npu.ExternalStream(self.handle, device=self.device)

    @property
    def side(self):
        return torch.npu.Stream(device=self.device)

    def flush(self) -> None:
        self.side.synchronize()
        self.stream.synchronize()  # expect: XST101

    def ready(self) -> bool:
        return self.stream.query()  # expect: XST102


class CudaSession:
    """The same interface on a CUDA box, used by the CI runners."""

    def __init__(self, device: int = 0):
        self.device = device

    @functools.cached_property
    def stream(self):
        return torch.cuda.Stream(device=self.device)

    def flush(self) -> None:
        self.stream.synchronize()

    def ready(self) -> bool:
        return self.stream.query()


def session_for(handle: Optional[int], device: int):
    if handle is None:
        return None
    return RuntimeSession(handle, device)
