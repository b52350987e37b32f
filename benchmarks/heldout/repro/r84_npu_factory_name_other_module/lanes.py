"""r84 (p23_jobs scheduler.py:76, hovf2): ``make("ExternalStream", stream_ptr=h)`` of
another module whose body is ``getattr(torch.npu, factory)(**kwargs)``. Its module exported
no copy for a name a parameter gives an attribute of torch_npu's module (its summary,
learnt with the name unknown, reads no stream), so the caller saw nothing. Fixed: such a
parameter is compared, as it were, with the external stream class's name, and a copy for
that literal is exported (source/compared.py, interp/variants.py)."""

import torch
import torch_npu


def make(factory: str, **kwargs):
    return getattr(torch.npu, factory)(**kwargs)


def make_positional(factory: str, handle: int):
    return getattr(torch_npu.npu, factory)(handle)
