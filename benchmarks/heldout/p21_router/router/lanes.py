"""Lane tables: mappings from route names to streams."""

from collections.abc import Iterator, Mapping, MutableMapping
from typing import Dict, Iterable, Tuple

import torch
import torch_npu  # noqa: F401


class LaneTable(MutableMapping):
    """A mutable mapping of route name to stream, kept in insertion order."""

    def __init__(self) -> None:
        self._lanes: Dict[str, object] = {}

    def __getitem__(self, key: str):
        return self._lanes[key]

    def __setitem__(self, key: str, value) -> None:
        self._lanes[key] = value

    def __delitem__(self, key: str) -> None:
        del self._lanes[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._lanes)

    def __len__(self) -> int:
        return len(self._lanes)


class FrozenLanes(Mapping):
    """A read-only snapshot of a table, handed to request handlers."""

    def __init__(self, pairs: Iterable[Tuple[str, object]]) -> None:
        self._data = dict(pairs)

    def __getitem__(self, key: str):
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def build_table(decode_handle: int) -> LaneTable:
    table = LaneTable()
    table["decode"] = torch.npu.ExternalStream(decode_handle)
    table["prefill"] = torch.npu.Stream()
    table["spill"] = torch.npu.Stream(priority=-1)
    return table


def managed_table() -> LaneTable:
    table = LaneTable()
    table["prefill"] = torch.npu.Stream()
    table["spill"] = torch.npu.Stream()
    return table
