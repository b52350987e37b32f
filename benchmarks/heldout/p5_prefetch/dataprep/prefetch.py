"""Copies the next batch to the device while the current one trains (apex-style)."""

from typing import Dict, Iterable, Optional

import torch


class Prefetcher:
    def __init__(
        self, loader: Iterable, device: str = "npu", stream: Optional[torch.npu.Stream] = None
    ):
        self.it = iter(loader)
        self.device = device
        self.stream = stream if stream is not None else torch.npu.Stream()
        self.batch: Optional[Dict[str, torch.Tensor]] = None
        self._preload()

    def _preload(self) -> None:
        try:
            host = next(self.it)
        except StopIteration:
            self.batch = None
            return
        with torch.npu.stream(self.stream):
            self.batch = {k: v.to(self.device, non_blocking=True) for k, v in host.items()}

    def next(self) -> Optional[Dict[str, torch.Tensor]]:
        torch.npu.current_stream().wait_stream(self.stream)
        batch = self.batch
        if batch is not None:
            for t in batch.values():
                t.record_stream(torch.npu.current_stream())
        self._preload()
        return batch


class HostCache:
    """Pinned staging area for tensors leaving the device."""

    def __init__(self, numel: int, dtype=torch.float32):
        self.buf = torch.empty(numel, dtype=dtype, pin_memory=True)

    def stash(self, t: torch.Tensor) -> torch.Tensor:
        n = t.numel()
        view = self.buf[:n].view_as(t)
        view.copy_(t, non_blocking=True)
        return view
