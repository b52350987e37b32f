"""Swaps KV-cache blocks between the device and a pinned host pool on a decode lane."""

from typing import List

import torch

from .pool import StreamManager


class KVSwapper:
    def __init__(self, device: int, n_blocks: int, block_shape):
        self.streams = StreamManager(device, n_compute=1, n_decode=1)
        self.lane = self.streams.lanes["decode"]
        self.cpu_cache = torch.empty((n_blocks, *block_shape), dtype=torch.float16, pin_memory=True)
        self.device = f"npu:{device}"

    def swap_out(self, blocks: List[torch.Tensor], ids: List[int]) -> None:
        with torch.npu.stream(self.lane):
            for i, blk in zip(ids, blocks, strict=True):
                self.cpu_cache[i].copy_(blk, non_blocking=True)  # expect: XST201

    def swap_in(self, ids: List[int]) -> List[torch.Tensor]:
        with torch.npu.stream(self.lane):
            return [
                self.cpu_cache[i].to(self.device, non_blocking=True)  # expect: XST201
                for i in ids
            ]

    def swap_in_blocking(self, ids: List[int]) -> List[torch.Tensor]:
        with torch.npu.stream(self.lane):
            return [self.cpu_cache[i].to(self.device) for i in ids]

    def swap_in_prefill_lane(self, ids: List[int]) -> List[torch.Tensor]:
        with torch.npu.stream(self.streams.lanes["prefill"]):
            return [self.cpu_cache[i].to(self.device, non_blocking=True) for i in ids]
