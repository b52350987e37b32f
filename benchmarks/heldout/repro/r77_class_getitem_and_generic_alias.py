"""r77 (p22_graphc ir.py/driver.py, hovf): ``Slot[torch.npu.ExternalStream](ext)``, a
``typing.Generic`` alias called as its class, and ``Lanes["vendor"]`` through the class's
``__class_getitem__`` were unknown (a class's subscript was only an enum lookup). Fixed:
``Cls[k]`` runs ``__class_getitem__`` as a call; without one (and without a metaclass
``__getitem__``) it is the class itself (interp/mappings.py)."""

from typing import Generic, TypeVar

import torch
import torch_npu

T = TypeVar("T")
_LANES = {}


class Slot(Generic[T]):
    def __init__(self, item: T) -> None:
        self._item = item

    def get(self) -> T:
        return self._item


class Lanes:
    def __class_getitem__(cls, name):
        return _LANES[name]


def run(handle):
    slot = Slot[torch_npu.npu.ExternalStream](torch_npu.npu.ExternalStream(handle))
    slot.get().query()  # expect: XST102
    _LANES["vendor"] = torch_npu.npu.ExternalStream(handle)
    _LANES["aux"] = torch.npu.Stream()
    Lanes["vendor"].synchronize()  # expect: XST101
    Lanes["aux"].synchronize()
