"""Entry points: decode on the library's queue, train on managed streams."""

import torch
from torch_npu.npu import ExternalStream

from .decoder import open_decoder
from .devcopy import upload_all
from .feeder import Feeder
from .loaders import clip_loader, on_queue, on_side_stream, plain_loader


def run_decoder_feed(handle: int, source, shape) -> int:
    dec = open_decoder(handle)
    feeder = Feeder(dec, shape)
    feeder.start(source)
    n = 0
    while feeder.out.get() is not None:
        n += 1
    return n


def run_loader_on_queue(handle: int, steps: int) -> float:
    q = ExternalStream(handle)
    total = 0.0
    for batch in on_queue(clip_loader(steps * 4, 4), q):  # expect: XST201
        total += batch["frames"].float().mean().item()
    return total


def run_plain_on_queue(handle: int, steps: int) -> float:
    q = ExternalStream(handle)
    total = 0.0
    for batch in on_queue(plain_loader(steps * 4, 4), q):
        total += batch["frames"].float().mean().item()
    return total


def run_side(steps: int) -> float:
    total = 0.0
    for batch in on_side_stream(clip_loader(steps * 4, 4)):
        total += batch["frames"].float().mean().item()
    return total


def upload_batches(handle: int, steps: int) -> int:
    q = ExternalStream(handle)
    seen = 0
    with torch.npu.stream(q):
        for batch in clip_loader(steps * 4, 4):
            dev = upload_all(batch, non_blocking=True)  # expect: XST201
            seen += dev["label"].numel()
    return seen


def upload_batches_sync(handle: int, steps: int) -> int:
    q = ExternalStream(handle)
    seen = 0
    with torch.npu.stream(q):
        for batch in clip_loader(steps * 4, 4):
            dev = upload_all(batch)
            seen += dev["label"].numel()
    return seen
