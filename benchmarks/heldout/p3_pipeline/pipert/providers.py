"""Where a stage's compute stream comes from: the fused-kernel runtime or torch."""

import abc
import threading

import torch
from torch_npu.npu import ExternalStream

_tls = threading.local()


class StreamProvider(abc.ABC):
    @abc.abstractmethod
    def stream(self) -> torch.npu.Stream: ...

    def fence(self) -> None:
        self.stream().synchronize()

    def tag(self):
        return self.stream().record_event()


class RuntimeProvider(StreamProvider):
    def __init__(self, handle: int):
        self.handle = handle

    def stream(self) -> torch.npu.Stream:
        cached = getattr(_tls, "stream", None)
        if cached is None:
            cached = _tls.stream = ExternalStream(self.handle)
        return cached


class TorchProvider(StreamProvider):
    def __init__(self):
        self._s = torch.npu.Stream()

    def stream(self) -> torch.npu.Stream:
        return self._s


def provider_for(handle: int) -> StreamProvider:
    return RuntimeProvider(handle) if handle else TorchProvider()


def end_of_step(handle: int) -> None:
    RuntimeProvider(handle).fence()  # expect: XST101
    TorchProvider().fence()


def tag_step() -> object:
    return TorchProvider().tag()


def tag_runtime_step(handle: int) -> object:
    p = RuntimeProvider(handle)
    return p.tag()  # expect: XST103
