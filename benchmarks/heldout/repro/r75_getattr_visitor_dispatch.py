"""r75 (p22_graphc lower.py, hovf): ``getattr(self, "visit_" + node.kind, default)``: the
name spliced from a literal and the caller's node kind was not a name the body uses, so no
copy was learnt for the caller's ``Node("barrier")`` and the method stayed unknown. Fixed:
``"lit" + p`` / ``p + "lit"`` and a parameter's attribute count as attribute names
(source/bodies.py), and a literal held at such an attribute decides a copy
(interp/constants.py). Left: the visitor defined in another module than the caller
(p22 driver.py:25/29/31)."""

from dataclasses import dataclass

import torch_npu


@dataclass
class Node:
    kind: str


class Lowering:
    def __init__(self, stream):
        self.stream = stream

    def visit(self, node):
        method = getattr(self, "visit_" + node.kind, self.generic_visit)
        return method(node)

    def visit_barrier(self, node):
        self.stream.synchronize()

    def generic_visit(self, node):
        return None


def lower(handle):
    vendor = torch_npu.npu.ExternalStream(handle)
    Lowering(vendor).visit(Node("barrier"))  # expect: XST101
    Lowering(vendor).visit(Node("matmul"))
