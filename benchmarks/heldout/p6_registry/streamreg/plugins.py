"""Execution backends: plugin classes registered by name when they are defined."""

from typing import Callable, ClassVar, Dict, Type

import torch
import torch_npu

from .comm import vendor_stream


class Backend:
    registry: ClassVar[Dict[str, Type["Backend"]]] = {}
    name = "base"

    def __init_subclass__(cls, *, name: str, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.name = name
        Backend.registry[name] = cls

    def __init__(self, device: int):
        self.device = device
        self.stream = self.make_stream()

    def make_stream(self):
        return torch.npu.Stream(device=self.device)

    @classmethod
    def create(cls, name: str, device: int) -> "Backend":
        return cls.registry[name](device)

    def launch(self, fn: Callable, *args):
        with torch.npu.stream(self.stream):
            return fn(*args)

    def fence(self):
        ev = torch.npu.Event()
        ev.record(self.stream)
        return ev

    def drain(self) -> None:
        self.stream.synchronize()  # maybe: XST101


class NativeBackend(Backend, name="native"):
    pass


class HighPriorityBackend(Backend, name="native-hi"):
    def make_stream(self):
        return torch.npu.Stream(device=self.device, priority=-1)


class VendorBackend(Backend, name="vendor"):
    """Kernels from the vendor runtime run on its own stream, wrapped for torch."""

    def make_stream(self):
        return torch_npu.npu.ExternalStream(vendor_stream(self.device), device=self.device)

    def fence(self):
        torch.npu.synchronize()
        return None


class PinnedVendorBackend(VendorBackend, name="vendor-pinned"):
    def prefetch(self, host: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.stream):
            return host.pin_memory().to(f"npu:{self.device}", non_blocking=True)  # expect: XST201
