"""Stream manager: hands out compute lanes (torch_npu streams) and decode lanes
(streams owned by the decode runtime, wrapped for torch)."""

import contextlib
import itertools
import threading
from typing import Dict, List

import torch
import torch_npu

from .runtime import DecodeRuntime


class StreamManager:
    def __init__(self, device: int, n_compute: int = 2, n_decode: int = 2):
        self.device = device
        self.runtime = DecodeRuntime(device)
        self._compute: List[torch.npu.Stream] = [
            torch.npu.Stream(device=device) for _ in range(n_compute)
        ]
        self._decode = [
            torch_npu.npu.ExternalStream(self.runtime.new_stream(), device=device)
            for _ in range(n_decode)
        ]
        self._rr = {
            "compute": itertools.cycle(self._compute),
            "decode": itertools.cycle(self._decode),
        }
        self._lock = threading.Lock()
        self.lanes: Dict[str, torch.npu.Stream] = {
            "prefill": self._compute[0],
            "decode": self._decode[0],
        }

    def next_stream(self, kind: str):
        with self._lock:
            return next(self._rr[kind])

    @contextlib.contextmanager
    def lease(self, kind: str):
        stream = self.next_stream(kind)
        with torch.npu.stream(stream):
            yield stream

    def idle(self, kind: str) -> bool:
        return self.lanes[kind].query()

    def drain(self) -> None:
        for s in self._compute:
            s.synchronize()
        for s in self._decode:
            s.synchronize()  # expect: XST101
        torch.npu.synchronize()

    def debug_stream(self):
        # a stream straight from the runtime, for tracing tools
        return torch.npu.ExternalStream(self.runtime.raw_stream())  # expect: XST001
