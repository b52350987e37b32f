"""Gradient hooks that hand gradients to the metrics library."""

import torch
from torch import nn

from .aux import AuxQueue


def watch(model: nn.Module, aux: AuxQueue, store: dict) -> None:
    for name, p in model.named_parameters():
        p.register_hook(lambda g, name=name: store.__setitem__(name, g.detach().norm()))


def loss_on_aux(model: nn.Module, aux: AuxQueue, x: torch.Tensor) -> torch.Tensor:
    with aux:
        out = model(x)
    return out.float().pow(2).mean()


def train_watch(model: nn.Module, aux: AuxQueue, x: torch.Tensor) -> dict:
    store: dict = {}
    watch(model, aux, store)
    loss = loss_on_aux(model, aux, x)
    torch.autograd.backward(loss)  # expect: XST203
    return store


def train_watch_inference(model: nn.Module, aux: AuxQueue, x: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        ref = loss_on_aux(model, aux, x)
    loss = model(x).float().pow(2).mean()
    (loss - ref).abs().backward()
    return loss.detach()
