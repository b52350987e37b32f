"""A pipeline stage and its activation relay."""

import torch
from torch import nn

from .placement import module_device


class Stage(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(torch.relu(self.proj(x)))


def hand_over(h: torch.Tensor, nxt: nn.Module) -> torch.Tensor:
    """Move an activation onto the device the next stage's weights live on."""
    return h.to(module_device(nxt))


def hand_over_to(h: torch.Tensor, k: int) -> torch.Tensor:
    return h.to(torch.device("npu", k))
