"""Gradient bucket overlap: the base makes a managed stream, subclasses may not."""

from typing import List

import torch
import torch_npu

from .handles import ring_stream_ptr


class Overlapper:
    def __init__(self, device: int):
        self.device = device
        self.stream = self._make_stream()
        self.pending: List[torch.Tensor] = []

    def _make_stream(self):
        return torch.npu.Stream(device=self.device)

    def bucket_ready(self, grad: torch.Tensor) -> None:
        self.stream.wait_stream(torch.npu.current_stream())  # maybe: XST104
        self.pending.append(grad)

    def release(self) -> None:
        for g in self.pending:
            g.record_stream(self.stream)  # maybe: XST105
        self.pending.clear()


class LocalOverlapper(Overlapper):
    pass


class RingOverlapper(Overlapper):
    def _make_stream(self):
        return torch_npu.npu.ExternalStream(ring_stream_ptr(self.device), device=self.device)

    def flush(self) -> None:
        self.stream.synchronize()  # expect: XST101


class TunedRingOverlapper(RingOverlapper):
    def __init__(self, device: int, buckets: int = 4):
        super().__init__(device)
        self.buckets = buckets

    def probe(self) -> bool:
        return self.stream.query()  # expect: XST102


class SafeRingOverlapper(RingOverlapper):
    def _make_stream(self):
        return torch.npu.Stream(device=self.device, priority=-1)

    def flush(self) -> None:
        self.stream.synchronize()
