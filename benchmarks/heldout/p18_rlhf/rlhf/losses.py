"""Loss helpers and grad-mode plumbing."""

import contextlib

import torch


def grad_mode(train: bool):
    """The trainer's one switch between training and scoring."""
    return torch.set_grad_enabled(train)


def kl(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    return (logp.exp() * (logp - ref_logp)).sum(-1).mean()


def pg_loss(logp: torch.Tensor, ids: torch.Tensor, advantage: torch.Tensor) -> torch.Tensor:
    taken = logp.gather(-1, ids.unsqueeze(-1)).squeeze(-1)
    return -(taken * advantage).mean()


def maybe_no_sync(model, last: bool):
    """DDP-style: skip the gradient all-reduce on all but the last micro-batch."""
    if last or not hasattr(model, "no_sync"):
        return contextlib.nullcontext()
    return model.no_sync()
