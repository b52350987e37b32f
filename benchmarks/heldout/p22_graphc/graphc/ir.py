"""IR: nodes, typed slots and the named lane classes."""

from dataclasses import dataclass, field
from typing import Generic, List, Optional, TypeVar

import torch
import torch_npu  # noqa: F401

T = TypeVar("T")


@dataclass
class Node:
    kind: str
    inputs: List["Node"] = field(default_factory=list)
    event: Optional[object] = None


@dataclass
class Graph:
    nodes: List[Node] = field(default_factory=list)
    marks: List[object] = field(default_factory=list)


class Slot(Generic[T]):
    """A typed holder the lowering passes hand values through."""

    def __init__(self, item: T) -> None:
        self._item = item

    def get(self) -> T:
        return self._item

    def swap(self, item: T) -> T:
        old, self._item = self._item, item
        return old


class Pair(Generic[T]):
    def __init__(self, first: T, second: T) -> None:
        self.first = first
        self.second = second

    def flipped(self) -> "Pair[T]":
        return Pair(self.second, self.first)


_LANES = {}


def install_lanes(vendor_handle: int) -> None:
    _LANES["vendor"] = torch.npu.ExternalStream(vendor_handle)
    _LANES["aux"] = torch.npu.Stream()


class Lanes:
    """`Lanes["vendor"]`: the installed lane of that name."""

    def __class_getitem__(cls, name: str):
        return _LANES[name]
