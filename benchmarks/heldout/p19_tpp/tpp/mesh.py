"""Devices and streams of a small pipeline/tensor-parallel mesh on one host."""

from typing import Dict, List

import torch


class Mesh:
    def __init__(self, link_handles: List[int]):
        self.world = len(link_handles)
        self.devices = [torch.device(f"npu:{r}") for r in range(self.world)]
        # the interconnect library owns one stream per device and lends it to us
        self.links: Dict[int, torch.npu.ExternalStream] = {
            r: torch.npu.ExternalStream(h, device=f"npu:{r}") for r, h in enumerate(link_handles)
        }
        self.own: Dict[int, torch.npu.Stream] = {
            r: torch.npu.Stream(device=r) for r in range(self.world)
        }

    def link(self, rank: int) -> torch.npu.ExternalStream:
        return self.links[rank]
