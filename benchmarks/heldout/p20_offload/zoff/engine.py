"""Parameter offload engine: weights live on the host and are streamed in per layer.

The DMA engine of the storage library owns the stream the transfers run on.
"""

from typing import Dict

import torch
from torch import nn
from torch_npu.npu import ExternalStream

from .pool import PageablePool, PinnedPool
from .shadow import HostShadow, PageableShadow
from .xfer import ASYNC, SYNC, copy_into, upload


class OffloadEngine:
    def __init__(self, module: nn.Module, dma_handle: int, slot_numel: int = 1 << 20):
        self.module = module
        self.dma = ExternalStream(dma_handle, device="npu:0")
        self.copy_stream = torch.npu.Stream(device=0)
        self.pool = PinnedPool(4, slot_numel)
        self.scratch = PageablePool(2, slot_numel)
        self.shadow = HostShadow(module)
        self.plain = PageableShadow(module)
        self.bufs: Dict[str, torch.Tensor] = {
            n: torch.empty(p.shape, dtype=p.dtype, device="npu:0")
            for n, p in module.named_parameters()
        }
        self.peer = torch.empty(slot_numel, dtype=torch.float16, device="npu:1")
        self.window = torch.empty(slot_numel, dtype=torch.float16, device="npu:0")

    # --- weights in -------------------------------------------------------------
    def fetch(self, name: str) -> torch.Tensor:
        with torch.npu.stream(self.dma):
            self.bufs[name].copy_(self.shadow.weights[name], non_blocking=True)  # expect: XST201
        return self.bufs[name]

    def fetch_plain(self, name: str) -> torch.Tensor:
        with torch.npu.stream(self.dma):
            self.bufs[name].copy_(self.plain.weights[name], non_blocking=True)
        return self.bufs[name]

    def fetch_managed(self, name: str) -> torch.Tensor:
        with torch.npu.stream(self.copy_stream):
            self.bufs[name].copy_(self.shadow.weights[name], non_blocking=True)
        return self.bufs[name]

    def fetch_window(self, chunk: torch.Tensor) -> torch.Tensor:
        slot = self.pool.acquire()
        slot[: chunk.numel()].copy_(chunk.flatten())
        with torch.npu.stream(self.dma):
            self.window.copy_(slot, non_blocking=True)  # expect: XST201
        return self.window

    def fetch_window_scratch(self, chunk: torch.Tensor) -> torch.Tensor:
        slot = self.scratch.acquire()
        slot[: chunk.numel()].copy_(chunk.flatten())
        with torch.npu.stream(self.dma):
            self.window.copy_(slot, non_blocking=True)
        return self.window

    def fetch_window_sync(self, chunk: torch.Tensor) -> torch.Tensor:
        slot = self.pool.acquire()
        slot[: chunk.numel()].copy_(chunk.flatten())
        with torch.npu.stream(self.dma):
            self.window.copy_(slot, non_blocking=False)
        return self.window

    def fetch_window_kw(self, chunk: torch.Tensor) -> torch.Tensor:
        slot = self.pool.acquire()
        slot[: chunk.numel()].copy_(chunk.flatten())
        with torch.npu.stream(self.dma):
            out = copy_into(self.window, slot, **ASYNC)  # expect: XST201
        return out

    def fetch_window_kw_sync(self, chunk: torch.Tensor) -> torch.Tensor:
        slot = self.pool.acquire()
        slot[: chunk.numel()].copy_(chunk.flatten())
        with torch.npu.stream(self.dma):
            out = copy_into(self.window, slot, **SYNC)
        return out

    def fetch_cuda_reference(self, name: str) -> torch.Tensor:
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            self.bufs[name].copy_(self.shadow.weights[name], non_blocking=True)
        return self.bufs[name]

    # the peer device's buffer: the copy takes npu:1's current stream, not the DMA one
    def fetch_to_peer(self, chunk: torch.Tensor) -> torch.Tensor:
        slot = self.pool.acquire()
        slot[: chunk.numel()].copy_(chunk.flatten())
        with torch.npu.stream(self.dma):
            self.peer.copy_(slot, non_blocking=True)
        return self.peer

    def upload_staged(self, t: torch.Tensor) -> torch.Tensor:
        self.shadow.stage(t)
        with torch.npu.stream(self.dma):
            return self.shadow.staged.to("npu:0", non_blocking=True)  # expect: XST201

    def upload_staged_plain(self, t: torch.Tensor) -> torch.Tensor:
        self.plain.stage(t)
        with torch.npu.stream(self.dma):
            return self.plain.staged.to("npu:0", non_blocking=True)

    def upload_fresh(self, t: torch.Tensor) -> torch.Tensor:
        host = torch.empty(t.shape, dtype=t.dtype, pin_memory=True)
        host.copy_(t)
        with torch.npu.stream(self.dma):
            dev = upload(host, **ASYNC)  # expect: XST201
        return dev

    def upload_fresh_npu(self, t: torch.Tensor) -> torch.Tensor:
        host = t.pin_memory()
        with torch.npu.stream(self.dma):
            dev = host.npu(non_blocking=True)  # expect: XST201
        return dev

    def upload_fresh_pageable(self, t: torch.Tensor) -> torch.Tensor:
        host = torch.empty(t.shape, dtype=t.dtype)
        host.copy_(t)
        with torch.npu.stream(self.dma):
            dev = upload(host, **ASYNC)
        return dev

    # --- weights and gradients out ----------------------------------------------
    def evict(self, name: str) -> None:
        with torch.npu.stream(self.dma):
            self.shadow.weights[name].copy_(self.bufs[name], non_blocking=True)  # expect: XST201

    def evict_blocking(self, name: str) -> None:
        with torch.npu.stream(self.dma):
            self.shadow.weights[name].copy_(self.bufs[name])

    def grads_out(self) -> None:
        with torch.npu.stream(self.dma):
            for host, p in zip(self.shadow.grads, self.module.parameters(), strict=True):
                host.copy_(p.grad, non_blocking=True)  # expect: XST201

    def grads_out_managed(self) -> None:
        with torch.npu.stream(self.copy_stream):
            for host, p in zip(self.shadow.grads, self.module.parameters(), strict=True):
                host.copy_(p.grad, non_blocking=True)

    def spill(self, t: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.dma):
            return t.to("npu:0").to("cpu", non_blocking=True)  # expect: XST201

    def spill_blocking(self, t: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.dma):
            return t.to("npu:0").cpu()
