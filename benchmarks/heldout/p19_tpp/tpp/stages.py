"""Pipeline stages, each placed on its own NPU."""

from typing import List

import torch
from torch import nn


class Stage(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x + self.ff(x))


def build(world: int, dim: int) -> List[Stage]:
    return [Stage(dim).to(f"npu:{r}") for r in range(world)]


def device_of(module: nn.Module) -> torch.device:
    return next(module.parameters()).device
