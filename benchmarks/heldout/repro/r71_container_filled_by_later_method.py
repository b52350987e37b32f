"""r71 (p21_router lanes.py, hovf): ``self._lanes = {}`` in ``__init__``, read by a method
defined before the one that fills it. The learning pass ran the reader first and read the
empty display as the class's guarantee (nothing there), and a second filling method's store
was lost (its ``self._lanes`` was already symbolic). Fixed: such a read and store are of
this ``self``'s container, whichever method ran first (interp/mappings.py)."""

import torch
import torch_npu


class Registry:
    def __init__(self):
        self._held = {}

    def lookup(self, name):
        return self._held[name]

    def add(self, name, stream):
        self._held[name] = stream

    def add_side(self, name, stream):
        self._held[name] = stream


def run(handle):
    registry = Registry()
    registry.add("comm", torch_npu.npu.ExternalStream(handle))
    registry.add_side("aux", torch.npu.Stream())
    registry.lookup("comm").synchronize()  # expect: XST101
