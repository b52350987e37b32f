# a module-level ContextVar set by one helper and read by another
import contextvars

import torch
from torch_npu.npu import ExternalStream

_active = contextvars.ContextVar("active", default=None)


def activate(s):
    _active.set(s)


def active():
    return _active.get()


def positive(h):
    activate(ExternalStream(h))
    active().synchronize()  # expect: XST101


def inline(h):
    _active.set(ExternalStream(h))
    _active.get().synchronize()  # expect: XST101
