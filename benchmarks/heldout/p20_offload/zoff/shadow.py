"""Host copies of a module's parameters and gradients."""

from typing import Dict, List

import torch
from torch import nn


class HostShadow:
    """Page-locked host copies, made once and kept for the run."""

    def __init__(self, module: nn.Module):
        self.weights: Dict[str, torch.Tensor] = {
            n: p.detach().cpu().pin_memory() for n, p in module.named_parameters()
        }
        self.grads: List[torch.Tensor] = [
            torch.zeros(p.shape, dtype=p.dtype, pin_memory=True) for p in module.parameters()
        ]
        self.staged = None

    def stage(self, t: torch.Tensor) -> None:
        self.staged = t.pin_memory()


class PageableShadow:
    def __init__(self, module: nn.Module):
        self.weights: Dict[str, torch.Tensor] = {
            n: p.detach().cpu() for n, p in module.named_parameters()
        }
        self.staged = None

    def stage(self, t: torch.Tensor) -> None:
        self.staged = t.clone()
