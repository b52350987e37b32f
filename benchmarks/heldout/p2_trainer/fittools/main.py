"""Command-line entry points."""

import torch

from .config import Placement, StreamKind, TrainConfig
from .trainer import Trainer


def run_local(model: torch.nn.Module, loader) -> None:
    cfg = TrainConfig(epochs=2, callbacks=("timer", "grad_norm", "offload"))
    Trainer(model, cfg).fit(loader)


def run_with_comm_library(model: torch.nn.Module, loader, handle: int) -> None:
    # the collective library hands us its stream; gradients are reduced on it
    placement = Placement(device="npu:0", comm=StreamKind.EXTERNAL, comm_handle=handle)
    cfg = TrainConfig(placement=placement, callbacks=("timer", "comm_timer"))
    trainer = Trainer(model, cfg)
    trainer.fit(loader)  # expect: XST104 XST111 XST101


def evaluate(model: torch.nn.Module, loader, handle: int) -> float:
    placement = Placement(comm=StreamKind.EXTERNAL, comm_handle=handle)
    trainer = Trainer(model, TrainConfig(placement=placement, callbacks=()))
    total = 0.0
    with torch.no_grad(), torch.npu.stream(trainer.streams.comm):
        for batch in loader:
            out = trainer.model(batch["x"].to(trainer.device))
            total += out.float().mean().item()
    return total


def finetune_with_aux(model: torch.nn.Module, head: torch.nn.Module, loader, handle: int) -> None:
    placement = Placement(comm=StreamKind.EXTERNAL, comm_handle=handle)
    trainer = Trainer(model, TrainConfig(placement=placement, callbacks=()))
    for batch in loader:
        trainer.train_step_aux(batch, head)  # expect: XST203


def finetune_local(model: torch.nn.Module, head: torch.nn.Module, loader) -> None:
    trainer = Trainer(model, TrainConfig(callbacks=()))
    for batch in loader:
        trainer.train_step_aux(batch, head)
