"""Student and teacher networks."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.ff(x)


class Tower(nn.Module):
    def __init__(self, d: int, depth: int, ckpt: bool = False):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(depth))
        self.head = nn.Linear(d, 10)
        self.ckpt = ckpt

    def features(self, x: torch.Tensor) -> torch.Tensor:
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=False) if self.ckpt else b(x)
        return x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


class Frozen(nn.Module):
    """Wraps a module so that its outputs never carry history."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner.requires_grad_(False)

    @torch.inference_mode()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)
