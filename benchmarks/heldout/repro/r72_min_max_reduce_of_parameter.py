"""r72 (p21_router select.py, hovf): ``min(lanes, key=...)`` over a helper's parameter
gave the list itself, not an element, and ``functools.reduce(f, lanes)`` gave nothing.
Fixed: ``min``/``max`` of one iterable give one of its elements, a symbolic one too
(interp/library.py); ``reduce`` gives what the last call of ``f`` returns
(interp/higher_order.py)."""

import functools

import torch
import torch_npu


def least_loaded(lanes, load):
    return min(lanes, key=lambda s: load.get(id(s), 0))


def fold_pick(lanes):
    return functools.reduce(lambda a, b: a if a.priority < b.priority else b, lanes)


def route(handle):
    lanes = [torch.npu.Stream(), torch_npu.npu.ExternalStream(handle)]
    least_loaded(lanes, {}).query()  # expect: XST102
    fold_pick(lanes).synchronize()  # expect: XST101
