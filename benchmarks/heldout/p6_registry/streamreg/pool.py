"""One pool of streams per device, cached on the class."""

import operator
from typing import ClassVar, Dict, Iterable

import torch

from .specs import make_stream

KINDS = ("compute", "h2d", "hccl")


class DevicePool:
    _pools: ClassVar[Dict[int, "DevicePool"]] = {}

    def __init__(self, device: int):
        self.device = device
        self.streams = {kind: make_stream(kind, device) for kind in KINDS}
        self.done = torch.npu.Event()

    @classmethod
    def for_device(cls, device: int) -> "DevicePool":
        pool = cls._pools.get(device)
        if pool is None:
            pool = cls._pools[device] = cls(device)
        return pool

    def get(self, kind: str):
        return self.streams[kind]

    def sync(self, kinds: Iterable[str] = ("compute", "h2d")) -> None:
        for kind in kinds:
            self.streams[kind].synchronize()

    def sync_everything(self) -> None:
        for s in self.streams.values():
            s.synchronize()  # expect: XST101

    def busy(self) -> bool:
        return not all(map(operator.methodcaller("query"), self.streams.values()))  # expect: XST102

    def mark(self, kind: str) -> None:
        self.done.record(self.streams[kind])
