"""Streams the interconnect runtime hands us, one per device."""

from typing import Dict, List

import torch
from torch_npu.npu import ExternalStream

from .placement import stage_device


class LinkTable:
    """The fabric library owns one queue per NPU; we wrap each as a torch stream."""

    def __init__(self, handles: List[int]):
        self.by_device: Dict[int, torch.npu.Stream] = {}
        for k, h in enumerate(handles):
            self.by_device[k] = ExternalStream(h, device=stage_device(k))
        self.spare = {k: torch.npu.Stream(device=k) for k in range(len(handles))}

    def link(self, k: int):
        return self.by_device[k]

    def local(self, k: int):
        return self.spare[k]


def single_link(handle: int, rank: int):
    return ExternalStream(handle, device=torch.device("npu", rank))
