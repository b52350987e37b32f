"""r73 (p21_router dispatch.py ``borrowed_lane(table, name)``, hovf): a helper reading
``table[name]``, both its parameters: the summary's path kept a subscript, not which
parameter keyed it, so the caller's ``"prefill"`` read any entry ("may be" the external
one). Fixed: the step names the parameter and is read under the caller's key where the
summary is applied (interp/mappings.py, abstract/paths.py)."""

import contextlib

import torch
import torch_npu


@contextlib.contextmanager
def borrowed_lane(table, name):
    lane = table[name]
    with torch.npu.stream(lane):
        yield lane


def step(handle):
    table = {"decode": torch_npu.npu.ExternalStream(handle), "prefill": torch.npu.Stream()}
    with borrowed_lane(table, "decode"):
        torch.npu.current_stream().synchronize()  # expect: XST101
    with borrowed_lane(table, "prefill"):
        torch.npu.current_stream().synchronize()
