# a metaclass's __call__ sets an attribute on the instance super().__call__ made: the
# instance a class call returns holds it (not followed: super().__call__ in a metaclass is
# not type.__call__ of the class, so `inst` is unknown there; p14 meta.py, dispatch.py)
import torch
from torch_npu.npu import ExternalStream


class Meta(type):
    def __call__(cls, h, *args, **kwargs):
        inst = super().__call__(h, *args, **kwargs)
        inst.lane = ExternalStream(h)
        return inst


class Session(metaclass=Meta):
    def __init__(self, h):
        self.h = h

    def close(self):
        self.lane.synchronize()  # expect: XST101


def positive(h):
    Session(h).lane.query()  # expect: XST102
