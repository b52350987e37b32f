"""The swapper and its prefetch workers."""

import queue
import threading
from concurrent.futures import ThreadPoolExecutor

import torch

from .lanes import bind_lane, cuda_kv_lane, kv_lane
from .movers import async_move, blocking_move, evict
from .pool import SlotPool


class Swapper:
    def __init__(self, runtime, blocks: int, numel: int):
        self.lane = kv_lane(runtime)
        self.copy_lane = torch.npu.Stream()
        self.pinned = SlotPool(blocks, numel)
        self.paged = SlotPool(blocks, numel, pin=False)
        self.table = {}
        self.staging = torch.empty(numel, dtype=torch.float16, device="npu:0")
        self.peer = torch.empty(numel, dtype=torch.float16, device="npu:1")
        self.uploader = ThreadPoolExecutor(1, initializer=bind_lane, initargs=(self.lane,))
        self.side_uploader = ThreadPoolExecutor(
            1, initializer=bind_lane, initargs=(self.copy_lane,)
        )

    def swap_out(self, block_id, block):
        i, slot = self.pinned.acquire()
        with torch.npu.stream(self.lane):
            async_move(slot, block)  # expect: XST201
        self.table[block_id] = i

    def swap_out_paged(self, block_id, block):
        i, slot = self.paged.acquire()
        with torch.npu.stream(self.lane):
            async_move(slot, block)
        self.table[block_id] = -1 - i

    def swap_out_side(self, block_id, block):
        i, slot = self.pinned.acquire()
        with torch.npu.stream(self.copy_lane):
            async_move(slot, block)
        self.table[block_id] = i

    def swap_in(self, block_id, dst):
        i = self.table.pop(block_id)
        with torch.npu.stream(self.lane):
            async_move(dst, self.pinned.slot(i))  # expect: XST201
        self.pinned.release(i)

    def swap_in_blocking(self, block_id, dst):
        i = self.table.pop(block_id)
        with torch.npu.stream(self.lane):
            blocking_move(dst, self.pinned.slot(i))
        self.pinned.release(i)

    def spill(self, block):
        with torch.npu.stream(self.lane):
            return evict(block)  # expect: XST201

    def spill_blocking(self, block):
        with torch.npu.stream(self.lane):
            return evict(block, non_blocking=False)

    def drain_to_host(self, blocks):
        with torch.npu.stream(self.lane):
            return list(map(evict, blocks))  # expect: XST201

    def snapshot(self, block):
        opts = {"dtype": block.dtype, "pin_memory": True}
        with torch.npu.stream(self.lane):
            host = torch.empty(block.shape, **opts)
            host.copy_(block, non_blocking=True)  # expect: XST201
        return host

    def snapshot_pageable(self, block):
        opts = {"dtype": block.dtype, "pin_memory": False}
        with torch.npu.stream(self.lane):
            host = torch.empty(block.shape, **opts)
            host.copy_(block, non_blocking=True)
        return host

    def mirror_to_peer(self, block):
        # the lane is npu:0's current stream; the peer buffer is on npu:1
        with torch.npu.stream(self.lane):
            self.staging.copy_(block)
            self.peer.copy_(self.staging)  # expect: XST112
        torch.npu.synchronize()
        self.peer.copy_(self.staging)

    def _upload(self, i, dst):
        dst.copy_(self.pinned.slot(i), non_blocking=True)  # expect: XST201

    def _upload_side(self, i, dst):
        dst.copy_(self.pinned.slot(i), non_blocking=True)

    def prefetch(self, block_id, dst):
        i = self.table[block_id]
        return self.uploader.submit(self._upload, i, dst)  # or: XST201

    def prefetch_side(self, block_id, dst):
        i = self.table[block_id]
        return self.side_uploader.submit(self._upload_side, i, dst)


class PrefetchWorker(threading.Thread):
    def __init__(self, swapper: Swapper, runtime):
        super().__init__(daemon=True)
        self.swapper = swapper
        self.jobs = queue.Queue()
        self.lane = kv_lane(runtime)

    def run(self):
        bind_lane(self.lane)  # this thread's current stream is the KV runtime's
        while True:
            job = self.jobs.get()
            if job is None:
                return
            block_id, dst = job
            i = self.swapper.table[block_id]
            dst.copy_(self.swapper.pinned.slot(i), non_blocking=True)  # expect: XST201


class ManagedPrefetchWorker(PrefetchWorker):
    def __init__(self, swapper: Swapper, runtime):
        super().__init__(swapper, runtime)
        self.lane = torch.npu.Stream()


class CudaSwapper:
    def __init__(self, runtime, blocks: int, numel: int):
        self.lane = cuda_kv_lane(runtime)
        self.pinned = SlotPool(blocks, numel)

    def swap_out(self, block):
        i, slot = self.pinned.acquire()
        with torch.cuda.stream(self.lane):
            async_move(slot, block)
        return i
