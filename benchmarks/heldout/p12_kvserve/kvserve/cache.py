"""Paged KV cache with lanes kept in ordered / keyed containers."""

import copy
from collections import ChainMap, OrderedDict, defaultdict, deque
from typing import Dict, List

import torch

from .lanes import attention_stream, copy_stream


class BlockTable:
    def __init__(self, device: int, n_blocks: int):
        self.device = device
        self.lanes: OrderedDict[str, torch.npu.Stream] = OrderedDict()
        self.lanes["copy"] = copy_stream(device)
        self.lanes["attn"] = attention_stream(device)
        self.recent = deque(maxlen=2)
        self.by_layer: Dict[int, List[torch.npu.Stream]] = defaultdict(list)
        self.host = torch.empty(n_blocks, 4096, dtype=torch.float16, pin_memory=True)

    def retire(self) -> None:
        self.recent.append(self.lanes["attn"])

    def settle(self) -> None:
        while self.recent:
            self.recent.popleft().synchronize()  # expect: XST101

    def settle_copy(self) -> None:
        self.lanes["copy"].synchronize()

    def attach(self, layer: int) -> None:
        self.by_layer[layer].append(self.lanes["attn"])

    def layer_busy(self, layer: int) -> bool:
        return any(not s.query() for s in self.by_layer[layer])  # expect: XST102

    def offload(self, block: torch.Tensor, i: int) -> None:
        with torch.npu.stream(self.lanes["attn"]):
            self.host[i].copy_(block, non_blocking=True)  # expect: XST201

    def offload_copy_lane(self, block: torch.Tensor, i: int) -> None:
        with torch.npu.stream(self.lanes["copy"]):
            self.host[i].copy_(block, non_blocking=True)


def layered_lanes(device: int) -> ChainMap:
    defaults = {"attn": copy_stream(device), "copy": copy_stream(device)}
    overrides = {"attn": attention_stream(device)}
    return ChainMap(overrides, defaults)


def wait_attention(device: int) -> None:
    lanes = layered_lanes(device)
    lanes["attn"].wait_event(torch.npu.Event())  # expect: XST104


def wait_copy(device: int) -> None:
    lanes = layered_lanes(device)
    lanes["copy"].wait_event(torch.npu.Event())


def snapshot(table: BlockTable) -> BlockTable:
    clone = copy.copy(table)
    clone.lanes = OrderedDict(table.lanes)
    return clone


def settle_snapshot(device: int) -> None:
    snap = snapshot(BlockTable(device, 16))
    snap.lanes["attn"].synchronize()  # expect: XST101
