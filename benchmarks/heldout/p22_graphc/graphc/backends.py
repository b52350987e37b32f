"""Execution backends: the concrete class is picked at run time."""

import abc

import torch
import torch_npu  # noqa: F401


class Backend(abc.ABC):
    @abc.abstractmethod
    def make_stream(self): ...

    def flush(self) -> None:
        self.make_stream().synchronize()

    def ready(self) -> bool:
        return self.make_stream().query()


class VendorBackend(Backend):
    def __init__(self, handle: int) -> None:
        self.handle = handle

    def make_stream(self):
        return torch.npu.ExternalStream(self.handle)


class NativeBackend(Backend):
    def make_stream(self):
        return torch.npu.Stream()


class CudaBackend(Backend):
    def make_stream(self):
        return torch.cuda.Stream()


BACKENDS = {"vendor": VendorBackend, "native": NativeBackend, "cuda": CudaBackend}


def pick_backend(name: str, handle: int = 0) -> Backend:
    if name == "vendor":
        return VendorBackend(handle)
    return BACKENDS[name]()
