# a class-level descriptor that gives every instance an external stream, read through a
# parameter annotated with the class. FIXED: a read through a declared parameter calls the
# class's descriptor's __get__ (interp/declared.py), and `d.setdefault(k, v)` on the
# caller's mapping (obj.__dict__ in a caching __get__) returns what it held or v
# (declared_types/descriptor_on_declared, data_model/descriptor_caching_dict,
# containers/setdefault_callers_mapping); p14 app.py
import torch
from torch_npu.npu import ExternalStream


class CodecLane:
    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__.setdefault(self.slot, ExternalStream(1))


class Decoder:
    lane = CodecLane()


def host_copy(dec: Decoder, frame: torch.Tensor) -> torch.Tensor:
    host = torch.empty(frame.shape, dtype=frame.dtype, pin_memory=True)
    with torch.npu.stream(dec.lane):
        host.copy_(frame, non_blocking=True)  # expect: XST201
    return host
