# functools.singledispatch: an `int` registration is not chosen for an int (literal or annotated),
# and an implementation chosen for a caller's list element is not run at the caller
import functools

import torch
from torch_npu.npu import ExternalStream


class Handle:
    def __init__(self, a: int):
        self.a = a


@functools.singledispatch
def as_torch(obj):
    raise TypeError


@as_torch.register
def _(obj: Handle):
    return ExternalStream(obj.a)


@as_torch.register
def _(obj: int):
    return ExternalStream(obj)


def literal():
    as_torch(1234).synchronize()  # expect: XST101


def each(hs):
    for h in hs:
        as_torch(h).synchronize()


def caller(address):
    each([Handle(address)])  # expect: XST101


def instance(address):
    as_torch(Handle(address)).synchronize()  # found
