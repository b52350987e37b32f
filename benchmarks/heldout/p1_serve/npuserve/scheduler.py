"""Continuous-batching scheduler: prefill on compute lanes, decode on the runtime's lanes."""

import heapq
from typing import List

import torch

from .engine import Engine, Request
from .pool import StreamManager


class Scheduler:
    def __init__(self, engine: Engine, streams: StreamManager, max_batch: int = 8):
        self.engine = engine
        self.streams = streams
        self.max_batch = max_batch
        self.waiting: List[Request] = []
        self.kv_blocks: List[torch.Tensor] = []

    def submit(self, req: Request) -> None:
        heapq.heappush(self.waiting, req)

    def _take(self) -> List[Request]:
        batch = []
        while self.waiting and len(batch) < self.max_batch:
            batch.append(heapq.heappop(self.waiting))
        return batch

    def prefill(self, batch: List[Request]) -> torch.Tensor:
        tokens = torch.stack([r.tokens for r in batch]).to("npu")
        s = self.streams.next_stream("compute")
        logits = self.engine.forward(tokens, s)
        s.synchronize()
        return logits

    def decode_step(self, batch: List[Request]) -> None:
        tokens = torch.stack([r.out[-1] for r in batch]).to("npu")
        s = self.streams.next_stream("decode")
        logits = self.engine.forward(tokens, s)  # expect: XST104
        with torch.npu.stream(s):
            ids = self.engine.sample(logits)  # expect: XST201
            for blk in self.kv_blocks:
                blk.record_stream(torch.npu.current_stream())  # expect: XST105
        for r, t in zip(batch, ids, strict=True):
            r.out.append(t)

    def step(self) -> None:
        batch = self._take()
        if not batch:
            return
        if not self.streams.idle("prefill"):
            torch.npu.synchronize()
        if all(r.out for r in batch):
            self.decode_step(batch)
        else:
            logits = self.prefill(batch)
            for r, t in zip(batch, self.engine.sample(logits), strict=True):
                r.out.append(t)

    def decode_graph(self, batch: List[Request]) -> torch.Tensor:
        tokens = torch.stack([r.out[-1] for r in batch])
        with self.streams.lease("decode") as s:
            out = self.engine.replay(tokens)
            done = s.record_event()  # expect: XST103
        done.synchronize()
        return out

    def decode_busy(self) -> bool:
        return not self.streams.idle("decode")  # expect: XST102
