"""Feeds decoded frames to the model from a background thread."""

import threading
from queue import Queue
from typing import Optional

import torch

from .decoder import DecoderQueue
from .devcopy import download_into, upload
from .hostmem import Ring, copy_options, pinned_buffer


class Feeder:
    def __init__(self, dec: DecoderQueue, shape, depth: int = 4):
        self.dec = dec
        self.ring = Ring(depth, shape, pin_memory=True)
        self.plain = Ring(depth, shape)
        self.out: Queue = Queue(depth)
        self.thread: Optional[threading.Thread] = None

    def start(self, source) -> None:
        self.thread = threading.Thread(target=self._pump, args=(source,), daemon=True)
        self.thread.start()

    def _pump(self, source) -> None:
        self.dec.enter()
        for frame in source:
            slot = self.ring.take()
            slot.copy_(frame)
            self.out.put(upload(slot, non_blocking=True))  # expect: XST201
        self.dec.leave()

    def pump_pageable(self, source) -> None:
        self.dec.enter()
        for frame in source:
            slot = self.plain.take()
            slot.copy_(frame)
            self.out.put(upload(slot, non_blocking=True))
        self.dec.leave()

    def pump_blocking(self, source) -> None:
        self.dec.enter()
        for frame in source:
            slot = self.ring.take()
            slot.copy_(frame)
            self.out.put(upload(slot, **copy_options(False)))
        self.dec.leave()


def readback(dec: DecoderQueue, t: torch.Tensor) -> torch.Tensor:
    host = pinned_buffer(tuple(t.shape))
    dec.enter()
    try:
        return download_into(host, t, **copy_options())  # expect: XST201
    finally:
        dec.leave()


def readback_other_device(dec: DecoderQueue, t: torch.Tensor) -> torch.Tensor:
    # the decoder's queue is current on npu:0 only; this copy runs on npu:1's stream
    host = pinned_buffer(tuple(t.shape))
    dec.enter()
    try:
        return host.to("npu:1", non_blocking=True)
    finally:
        dec.leave()
