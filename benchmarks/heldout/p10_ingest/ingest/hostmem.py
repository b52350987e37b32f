"""Host staging buffers."""

from typing import Any, Dict, Tuple

import torch


def host_buffer(shape: Tuple[int, ...], **kwargs: Any) -> torch.Tensor:
    return torch.empty(shape, **kwargs)


def pinned_buffer(shape: Tuple[int, ...], dtype=torch.float32) -> torch.Tensor:
    return host_buffer(shape, dtype=dtype, pin_memory=True)


def copy_options(fast: bool = True) -> Dict[str, Any]:
    return {"non_blocking": fast}


class Ring:
    """A ring of host slots the decoder writes into."""

    def __init__(self, slots: int, shape: Tuple[int, ...], **alloc: Any):
        self.slots = [host_buffer(shape, **alloc) for _ in range(slots)]
        self.i = 0

    def take(self) -> torch.Tensor:
        buf = self.slots[self.i]
        self.i = (self.i + 1) % len(self.slots)
        return buf
