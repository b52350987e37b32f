"""Streams: the reward server's lane (foreign) and our own compute streams."""

from typing import Optional

import torch
import torch_npu


class RewardLane:
    """The reward-model server runs on its own stream and lends it to us."""

    def __init__(self, handle: int, device: int = 0):
        self.device = device
        self.stream = torch_npu.npu.ExternalStream(handle, device=device)

    def current(self):
        return torch.npu.stream(self.stream)


class ComputeLanes:
    """Streams torch_npu makes for us."""

    def __init__(self, device: int = 0, side: Optional[int] = None):
        self.main = torch.npu.Stream(device=device)
        self.side = torch.npu.Stream(device=device if side is None else side)

    def on_main(self):
        return torch.npu.stream(self.main)
