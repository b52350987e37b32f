"""Stream providers: anything with ``device``, ``stream()`` and ``fence()`` (structural typing)."""

import ctypes
import functools
from typing import Protocol

import torch
import torch_npu  # noqa: F401

_aclserve = ctypes.CDLL("libaclserve.so")
_aclserve.aclserve_stream_create.restype = ctypes.c_void_p
_aclserve.aclserve_stream_create.argtypes = [ctypes.c_int]


class StreamProvider(Protocol):
    device: int

    def stream(self) -> "torch.npu.Stream": ...

    def fence(self) -> None: ...


class AclServeProvider:
    """Lanes owned by the aclserve runtime: torch only borrows them."""

    def __init__(self, device: int = 0) -> None:
        self.device = device
        self._raw = _aclserve.aclserve_stream_create(device)

    @functools.cached_property
    def _lane(self) -> "torch.npu.ExternalStream":
        return torch.npu.ExternalStream(self._raw, device=self.device)

    def stream(self) -> "torch.npu.ExternalStream":
        return self._lane

    def fence(self) -> None:
        self._lane.synchronize()  # expect: XST101

    def ready(self) -> bool:
        return self._lane.query()  # expect: XST102

    def close(self) -> None:
        # the runtime synchronizes and destroys its own stream
        _aclserve.aclserve_stream_destroy(ctypes.c_void_p(self._raw))


class PoolProvider:
    """A torch_npu pool stream per device."""

    def __init__(self, device: int = 0) -> None:
        self.device = device

    @functools.cached_property
    def _lane(self) -> "torch.npu.Stream":
        return torch.npu.Stream(device=self.device)

    def stream(self) -> "torch.npu.Stream":
        return self._lane

    def fence(self) -> None:
        self._lane.synchronize()

    def ready(self) -> bool:
        return self._lane.query()


class CudaReferenceProvider:
    """Used by the GPU reference runs in CI."""

    def __init__(self, device: int = 0) -> None:
        self.device = device
        self._lane = torch.cuda.Stream(device=device)

    def stream(self) -> "torch.cuda.Stream":
        return self._lane

    def fence(self) -> None:
        self._lane.synchronize()


def quiesce(provider: StreamProvider) -> None:
    """Block until the provider's lane has drained (before a weight swap)."""
    done = torch.npu.Event()
    done.record(provider.stream())
    done.synchronize()


def describe(provider: StreamProvider) -> str:
    return f"{type(provider).__name__}@npu:{provider.device}"
