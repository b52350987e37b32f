"""Compile-and-run driver."""

import torch
import torch_npu  # noqa: F401

from .backends import pick_backend
from .ir import Graph, Lanes, Node, Pair, Slot, install_lanes
from .lower import Lowering
from .passes import run_passes


def compile_graph(handle: int) -> Graph:
    vendor = torch.npu.ExternalStream(handle)
    local = torch.npu.Stream()
    g = Graph([Node("matmul"), Node("nop")])
    g = run_passes(vendor, g, ["fold"])
    g = run_passes(vendor, g, ["fence"])  # expect: XST101
    g = run_passes(vendor, g, ("fold", "mark"))  # expect: XST103
    return run_passes(local, g, ["fence", "mark"])


def lower_graph(handle: int) -> None:
    vendor = torch.npu.ExternalStream(handle)
    Lowering(vendor).visit(Node("matmul"))
    Lowering(vendor).visit(Node("barrier"))  # expect: XST101
    local = Lowering(torch.npu.Stream())
    sig = Node("signal")
    local.visit(sig)
    Lowering(vendor).visit(Node("signal"))  # expect: XST103
    local.visit(Node("await", [sig]))
    Lowering(vendor).visit(Node("await", [sig]))  # expect: XST104
    Lowering(torch.npu.Stream()).lower(Graph([Node("barrier"), Node("signal")]))


def run_backends(handle: int) -> bool:
    pick_backend("vendor", handle).flush()  # expect: XST101
    pick_backend("native").flush()
    pick_backend("cuda").flush()
    return pick_backend("native").ready()


def slots(handle: int):
    slot = Slot[torch.npu.ExternalStream](torch.npu.ExternalStream(handle))
    slot.get().query()  # expect: XST102
    side: Slot[torch.npu.Stream] = Slot(torch.npu.Stream())
    side.get().query()
    old = side.swap(slot.get())
    old.query()
    side.get().synchronize()  # expect: XST101
    pair = Pair(torch.npu.Stream(), torch.npu.ExternalStream(handle))
    pair.flipped().first.record_event()  # expect: XST103
    pair.flipped().second.record_event()


def named_lanes(handle: int) -> None:
    install_lanes(handle)
    Lanes["aux"].synchronize()
    Lanes["vendor"].synchronize()  # expect: XST101
    with torch.npu.stream(Lanes["vendor"]):
        y = torch.ones(4, device="npu") * 2
    torch.npu.synchronize()
    Lanes["aux"].wait_stream(torch.npu.current_stream())
    del y
