"""Choosing a lane: by load, by priority, by folding over candidates."""

import functools
from typing import Dict, List


def least_loaded(lanes: List, load: Dict[int, int]):
    return min(lanes, key=lambda s: load.get(id(s), 0))


def most_urgent(lanes: List):
    return max(lanes, key=lambda s: -s.priority)


def by_priority(lanes: List) -> List:
    return sorted(lanes, key=lambda s: s.priority)


def fold_pick(lanes: List):
    return functools.reduce(lambda a, b: a if a.priority < b.priority else b, lanes)


def drain_in_order(lanes: List) -> None:
    for lane in sorted(lanes, key=lambda s: s.priority, reverse=True):
        lane.synchronize()
