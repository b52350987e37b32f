"""Per-parameter hooks: closures over loop variables, nonlocal counters, decorated steps."""

import functools
from typing import Callable, Dict, List

import torch

from .streams import comm_stream, prefetch_stream


def on_lane(make_lane: Callable[[], torch.npu.Stream]):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            lane = make_lane()
            with torch.npu.stream(lane):
                out = fn(*args, **kwargs)
                lane.synchronize()  # or: XST101
            return out

        return wrapper

    return deco


@on_lane(lambda: comm_stream(0))  # expect: XST101
def reduce_bucket(bucket: torch.Tensor) -> torch.Tensor:
    return bucket / 8


@on_lane(prefetch_stream)
def gather_bucket(bucket: torch.Tensor) -> torch.Tensor:
    return bucket * 1


def install(params: List[torch.nn.Parameter], ranks: List[int]) -> List[Callable[[], None]]:
    finishers = []
    for p, r in zip(params, ranks, strict=True):
        lane = comm_stream(r)

        def finish(lane=lane):
            lane.wait_event(torch.npu.Event())  # expect: XST104

        finishers.append(finish)
        p.register_post_accumulate_grad_hook(lambda _p, lane=lane: lane.query())  # expect: XST102
    return finishers


def install_prefetch(params: List[torch.nn.Parameter]) -> None:
    for p in params:
        lane = prefetch_stream()
        p.register_post_accumulate_grad_hook(lambda _p, lane=lane: lane.query())


def counting_sync(ranks: List[int]) -> Callable[[], int]:
    lane = comm_stream(ranks[0])
    count = 0

    def step() -> int:
        nonlocal lane, count
        count += 1
        lane.synchronize()  # expect: XST101
        lane = comm_stream(ranks[count % len(ranks)])
        return count

    return step


@functools.lru_cache(maxsize=64)
def lane_for(rank: int) -> torch.npu.Stream:
    return comm_stream(rank)


@functools.lru_cache(maxsize=64)
def prefetch_for(rank: int) -> torch.npu.Stream:
    return prefetch_stream()


def cached_wait(rank: int, ev: torch.npu.Event) -> None:
    lane_for(rank).wait_event(ev)  # expect: XST104
    prefetch_for(rank).wait_event(ev)


def bucket_lanes(ranks: List[int]) -> Dict[str, List[torch.npu.Stream]]:
    table: Dict[str, List[torch.npu.Stream]] = {}
    for r in ranks:
        table.setdefault("comm", []).append(comm_stream(r))
        table.setdefault("prefetch", []).append(prefetch_stream())
    return table


def flush_buckets(ranks: List[int]) -> None:
    table = bucket_lanes(ranks)
    comm = table.pop("comm")
    comm.pop().synchronize()  # expect: XST101
    for s in table.pop("prefetch"):
        s.synchronize()


def requeue(ranks: List[int]) -> None:
    lanes: List[torch.npu.Stream] = [comm_stream(ranks[-1])]
    lanes.insert(0, comm_stream(ranks[0]))
    lanes.extend(comm_stream(r) for r in ranks[1:-1])
    head, *rest = lanes
    head.record_event()  # expect: XST103
    for s in rest:
        s.query()  # expect: XST102
