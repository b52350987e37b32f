"""Generic helpers built from operator: lanes looked up by attribute, key, and method name."""

import copy
import operator
import types
from collections import OrderedDict, defaultdict
from typing import Dict, List

import torch

from .fields import Decoder
from .handles import codec_stream, torch_stream
from .meta import LocalSession, Session

sync = operator.methodcaller("synchronize")
probe = operator.methodcaller("query")
lane_of = operator.attrgetter("lane")
codec_of = operator.itemgetter("codec")


def close_sessions(channels: List[int]) -> None:
    for s in map(Session, channels):
        sync(lane_of(s))  # expect: XST101


def close_local(channels: List[int]) -> None:
    for s in map(LocalSession, channels):
        sync(lane_of(s))


def probe_table(channel: int) -> bool:
    table = {"codec": codec_stream(channel), "torch": torch_stream()}
    return probe(codec_of(table))  # expect: XST102


def probe_torch(channel: int) -> bool:
    table = {"codec": codec_stream(channel), "torch": torch_stream()}
    return probe(operator.itemgetter("torch")(table))


def lanes_by_kind(channels: List[int]) -> Dict[str, List[torch.npu.Stream]]:
    by_kind: Dict[str, List[torch.npu.Stream]] = defaultdict(list)
    for ch in channels:
        by_kind["codec"].append(codec_stream(ch))
        by_kind["torch"].append(torch_stream())
    return by_kind


def drain_kind(channels: List[int]) -> None:
    by_kind = lanes_by_kind(channels)
    for s in by_kind["codec"]:
        s.wait_event(torch.npu.Event())  # expect: XST104
    for s in by_kind["torch"]:
        s.wait_event(torch.npu.Event())


_lazy = defaultdict(lambda: codec_stream(0))
_lazy_torch = defaultdict(torch_stream)


def lazy_sync(name: str) -> None:
    _lazy[name].synchronize()  # expect: XST101
    _lazy_torch[name].synchronize()


def config_for(channel: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(channel=channel, lane=codec_stream(channel), post=torch_stream())


def replicate(channel: int) -> None:
    cfg = config_for(channel)
    twin = copy.copy(cfg)
    twin.lane.record_event()  # expect: XST103
    fields = copy.copy(vars(cfg))
    fields["post"].record_event()


def ordered_flush(channels: List[int]) -> None:
    lanes = OrderedDict((ch, codec_stream(ch)) for ch in channels)
    lanes.move_to_end(channels[0])
    _, last = lanes.popitem()
    last.synchronize()  # expect: XST101


def decoder_lanes(channels: List[int]) -> None:
    decs = [Decoder(ch) for ch in channels]
    for lane in map(operator.attrgetter("lane"), decs):
        lane.query()  # expect: XST102
    for spare in map(operator.attrgetter("spare"), decs):
        spare.query()
