"""Generator-based prefetching over any iterable of pinned batches."""

from typing import Dict, Iterable, Iterator

import torch
from torch_npu.npu import ExternalStream

from .loader import make_loader


def prefetched(
    batches: Iterable[Dict[str, torch.Tensor]], stream
) -> Iterator[Dict[str, torch.Tensor]]:
    for host in batches:
        with torch.npu.stream(stream):
            dev = {"input_ids": host["input_ids"].to("npu", non_blocking=True)}
        torch.npu.current_stream().wait_stream(stream)
        yield dev


def consume_on_io(io_handle: int, n: int) -> int:
    io = ExternalStream(io_handle)
    seen = 0
    for batch in prefetched(make_loader(n, 8), io):  # expect: XST201 XST103
        seen += batch["input_ids"].shape[0]
    return seen


def consume_managed(n: int) -> int:
    seen = 0
    for batch in prefetched(make_loader(n, 8), torch.npu.Stream()):
        seen += batch["input_ids"].shape[0]
    return seen
