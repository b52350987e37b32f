# a metaclass's __call__ sets an attribute on the instance super().__call__ made: the
# instance a class call returns holds it. FIXED: super() in a metaclass's method given the
# class is type's (super().__call__(*a) makes the instance, __new__ then __init__), the
# instance the metaclass's __call__ returns is the class call's, and what it sets there is
# the class's own guarantee (interp/datamodel.py; data_model/metaclass_call_sets_attribute,
# metaclass_call_passes_init, class_guarantees/metaclass_call_sets_attribute); p14 meta.py
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
