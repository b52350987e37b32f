# a ContextVar set by a helper and read by another: with one caller setting an external stream
# and another a managed one, neither read is followed (the reading helper's summary reads the
# variable as the module left it, not in each caller's view: the gap
# call_effects/dict_read_in_third_function)
import contextvars

import torch
from torch_npu.npu import ExternalStream

_active = contextvars.ContextVar("active", default=None)


def activate(s):
    _active.set(s)


def active():
    return _active.get()


def positive(h, ready):
    activate(ExternalStream(h))
    active().wait_event(ready)  # expect: XST104


def negative(ready):
    activate(torch.npu.Stream())
    active().wait_event(ready)
