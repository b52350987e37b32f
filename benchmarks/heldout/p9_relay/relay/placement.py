"""Where each pipeline stage lives."""

from typing import List

import torch


def stage_device(k: int) -> torch.device:
    return torch.device("npu", k)


def stage_names(n: int) -> List[str]:
    return [f"npu:{k}" for k in range(n)]


def module_device(module: torch.nn.Module) -> torch.device:
    return next(module.parameters()).device


def place(modules: List[torch.nn.Module]) -> List[torch.nn.Module]:
    return [m.to(stage_device(k)) for k, m in enumerate(modules)]
