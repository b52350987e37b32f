"""r70 (p21_router lanes.py/app.py, hovf): a ``collections.abc.MutableMapping`` subclass
holding streams. ``table[k] = v`` did not run the class's ``__setitem__`` (the store was
lost), ``table[k]`` read ``__getitem__``'s return without what other methods stored, and
the mixins ``get``/``pop``/``values``/``items`` were unknown. Fixed: the subscript dunders
are applied as calls, a mapping keeps what literal keys stored, the mixins read through
``__getitem__`` (interp/mappings.py)."""

from collections.abc import MutableMapping

import torch
import torch_npu


class LaneTable(MutableMapping):
    def __init__(self):
        self._lanes = {}

    def __getitem__(self, key):
        return self._lanes[key]

    def __setitem__(self, key, value):
        self._lanes[key] = value

    def __delitem__(self, key):
        del self._lanes[key]

    def __iter__(self):
        return iter(self._lanes)

    def __len__(self):
        return len(self._lanes)


def build(handle):
    table = LaneTable()
    table["decode"] = torch_npu.npu.ExternalStream(handle)
    table["prefill"] = torch.npu.Stream()
    return table


def route(handle):
    table = build(handle)
    table["decode"].synchronize()  # expect: XST101
    table["prefill"].synchronize()
    table.get("decode").query()  # expect: XST102
    for lane in table.values():
        lane.record_event()  # expect: XST103
