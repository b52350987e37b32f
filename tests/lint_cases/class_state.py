# What an instance of a subclass holds: the attributes a base's __init__ sets only when that
# __init__ runs (no __init__ of its own, or super().__init__ / Base.__init__ called).
import torch
from torch_npu.npu import ExternalStream


class Base:
    def __init__(self, ptr):
        self.stream = ExternalStream(ptr)
        self.ptr = ptr


class Rebound(Base):
    """Never calls Base.__init__: its stream is whatever bind() was given."""

    def __init__(self):
        self.ready = True

    def bind(self, s):
        self.stream = s

    def flush(self):
        self.stream.synchronize()


class Inherits(Base):
    def flush(self):
        self.stream.synchronize()  # XST101: 9


class Chained(Base):
    def __init__(self, ptr):
        super().__init__(ptr)
        self.extra = None

    def flush(self):
        self.stream.synchronize()  # XST101: 9


class ChainedByName(Base):
    def __init__(self, ptr):
        Base.__init__(self, ptr)

    def poll(self):
        return self.stream.query()  # XST102: 16


class Grandchild(Rebound):
    def drain(self):
        self.stream.synchronize()


class SetsItAgain(Base):
    def __init__(self):
        self.ready = False

    def reset(self, ptr):
        self.stream = ExternalStream(ptr)

    def drain(self):
        self.stream.synchronize()  # XST101: 9


def use(ptr):
    r = Rebound()
    r.bind(torch.npu.Stream())
    r.flush()
    Rebound().stream.synchronize()
    Grandchild().stream.synchronize()
    Inherits(ptr).stream.synchronize()  # XST101: 5
    Chained(ptr).stream.synchronize()  # XST101: 5
