"""Per-device stream banks: one object per device, made once (class cache in __new__)."""

import collections
import weakref
from typing import ClassVar, Dict

import torch
import torch_npu

from .handles import ring_stream_ptr


class StreamBank:
    _instances: ClassVar[Dict[int, "StreamBank"]] = {}

    def __new__(cls, device: int):
        bank = cls._instances.get(device)
        if bank is None:
            bank = super().__new__(cls)
            bank._setup(device)
            cls._instances[device] = bank
        return bank

    def _setup(self, device: int) -> None:
        self.device = device
        self.ring = torch_npu.npu.ExternalStream(ring_stream_ptr(device), device=device)
        self.side = torch.npu.Stream(device=device)
        self.events = collections.defaultdict(torch.npu.Event)

    @property
    def comm(self):
        return self.ring

    def fence(self, name: str) -> None:
        self.events[name].record(self.side)

    def fence_ring(self, name: str) -> None:
        self.events[name].record(self.comm)  # expect: XST103


_side_pools = collections.defaultdict(lambda: torch.npu.Stream())
_live = weakref.WeakValueDictionary()


def side_stream(device: int):
    return _side_pools[device]


def remember(key: str, stream) -> None:
    _live[key] = stream


def drain_live() -> None:
    for s in list(_live.values()):
        s.synchronize()  # expect: XST101


def publish_ring(device: int) -> None:
    remember(f"ring{device}", StreamBank(device).comm)
