"""Lane bookkeeping over stream lists: itertools, zip, enumerate, unpacking."""

import itertools
import operator
from typing import Dict

import torch

from dataflow.sources import decoder_lanes, decoder_streams, staging_lanes, staging_streams


def drain_all(n: int) -> None:
    for lane in itertools.chain(decoder_streams(n), staging_streams(n)):
        lane.synchronize()  # expect: XST101


def drain_staging(n: int) -> None:
    for lane in itertools.chain(staging_streams(n), staging_lanes(n)):
        lane.synchronize()


def probe_first(n: int) -> int:
    busy = 0
    for lane in itertools.islice(decoder_lanes(n), 2):
        if not lane.query():  # expect: XST102
            busy += 1
    return busy


def probe_staging(n: int) -> bool:
    return all(lane.query() for lane in itertools.islice(staging_lanes(n), 2))


def mark_both(n: int) -> None:
    _seen, todo = itertools.tee(decoder_streams(n))
    for lane in todo:
        lane.record_event()  # expect: XST103
    _stage_seen, stage_todo = itertools.tee(staging_streams(n))
    for lane in stage_todo:
        lane.record_event()


def pair_up(n: int) -> None:
    for dec, stage in zip(decoder_streams(n), staging_streams(n), strict=True):
        stage.wait_stream(dec)  # expect: XST103|XST104
    for a, b in zip(staging_streams(n), staging_streams(n), strict=True):
        a.wait_stream(b)


def by_name(n: int) -> Dict[str, "torch.npu.Stream"]:
    table = {f"dec{i}": s for i, s in enumerate(decoder_streams(n))}
    table.update({f"stage{i}": s for i, s in enumerate(staging_streams(n))})
    return table


def fence_decoders(n: int) -> None:
    table = {f"dec{i}": s for i, s in enumerate(decoder_streams(n))}
    for _name, lane in table.items():
        ev = torch.npu.Event()
        ev.wait(lane)  # expect: XST104


def fence_staging(n: int) -> None:
    table = {f"stage{i}": s for i, s in enumerate(staging_streams(n))}
    for _name, lane in sorted(table.items(), key=operator.itemgetter(0)):
        torch.npu.Event().wait(lane)


def release(buffers, n: int) -> None:
    _head, *rest = decoder_streams(n + 1)
    for buf, lane in zip(buffers, rest, strict=False):
        buf.record_stream(lane)  # expect: XST105
    first, *_others = staging_streams(n + 1)
    for buf in buffers:
        buf.record_stream(first)


def grouped(n: int) -> None:
    lanes = sorted(
        ((i % 2, s) for i, s in enumerate(decoder_streams(n))),
        key=operator.itemgetter(0),
    )
    for _parity, group in itertools.groupby(lanes, key=operator.itemgetter(0)):
        for _, lane in group:
            torch.npu.graph_task_group_begin(lane)  # expect: XST107
