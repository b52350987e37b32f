"""Backward passes kept apart from the loops that build losses."""

from typing import Sequence

import torch


def backprop(losses: Sequence[torch.Tensor], scale: float = 1.0) -> None:
    torch.autograd.backward([loss * scale for loss in losses])


def grads(loss: torch.Tensor, params) -> Sequence[torch.Tensor]:
    return torch.autograd.grad(loss, list(params), allow_unused=True)


def accumulate(loss: torch.Tensor, steps: int) -> None:
    (loss / steps).backward()
