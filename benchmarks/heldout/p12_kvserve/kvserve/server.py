"""Request loop: requests carry their lane in a namespace; helpers receive lanes as **kwargs."""

import types
from typing import Dict, List

import torch
import torch.distributed as dist

from .lanes import LIVE, AttentionLane, CopyLane, attention_stream, copy_stream


def make_request(rid: int, device: int, decode: bool) -> types.SimpleNamespace:
    lane = attention_stream(device) if decode else copy_stream(device)
    return types.SimpleNamespace(rid=rid, lane=lane, decode=decode)


def decode_request(rid: int, device: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(rid=rid, lane=attention_stream(device))


def prefill_request(rid: int, device: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(rid=rid, lane=copy_stream(device))


def reduce_on(lane, grads: torch.Tensor, **opts) -> None:
    with torch.npu.stream(lane):
        dist.all_reduce(grads, **opts)  # or: XST111


def _finish(*, lane, ev=None) -> None:
    (ev or torch.npu.Event()).record(lane)  # or: XST103


def run_decode(rid: int, grads: torch.Tensor) -> None:
    req = decode_request(rid, 0)
    req.lane.synchronize()  # expect: XST101
    reduce_on(req.lane, grads, async_op=False)  # expect: XST111


def run_prefill(rid: int, grads: torch.Tensor) -> None:
    req = prefill_request(rid, 0)
    req.lane.synchronize()
    reduce_on(req.lane, grads, async_op=False)


def finish_all(devices: List[int]) -> None:
    opts: Dict[str, object] = {"lane": attention_stream(devices[0])}
    _finish(**opts)  # expect: XST103


def finish_copies(devices: List[int]) -> None:
    opts: Dict[str, object] = {"lane": copy_stream(devices[0])}
    _finish(**opts)


def watch(device: int) -> None:
    lane = AttentionLane(device)
    spare = CopyLane(device)
    spare.flush()
    if not spare.idle():
        torch.npu.synchronize()
    LIVE["attention"].record_event()  # expect: XST103
    LIVE["copy"].record_event()
    del lane


def cuda_fallback(x: torch.Tensor) -> torch.Tensor:
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = x * 2
    s.synchronize()
    s.query()
    return y
