"""Host staging buffers: a pinned pool and a pageable fallback."""

from typing import List

import torch


class PinnedPool:
    """Fixed set of page-locked staging slots, handed out round robin."""

    def __init__(self, slots: int, numel: int, dtype: torch.dtype = torch.float16):
        self._slots: List[torch.Tensor] = [
            torch.empty(numel, dtype=dtype, pin_memory=True) for _ in range(slots)
        ]
        self._next = 0

    def acquire(self) -> torch.Tensor:
        slot = self._slots[self._next]
        self._next = (self._next + 1) % len(self._slots)
        return slot


class PageablePool:
    """Same interface, ordinary host memory (used when pinning is disabled)."""

    def __init__(self, slots: int, numel: int, dtype: torch.dtype = torch.float16):
        self._slots: List[torch.Tensor] = [torch.empty(numel, dtype=dtype) for _ in range(slots)]
        self._next = 0

    def acquire(self) -> torch.Tensor:
        slot = self._slots[self._next]
        self._next = (self._next + 1) % len(self._slots)
        return slot
