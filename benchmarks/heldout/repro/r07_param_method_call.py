# an object from the caller whose own method or property returns the stream: not run at the
# caller (only `get`/`result`, matched by the container/future models, happen to work)
import torch
from torch_npu.npu import ExternalStream


class Manager:
    def __init__(self, h: int):
        self.s = ExternalStream(h)

    def stream(self):
        return self.s

    @property
    def current(self):
        return self.s


def use(m):
    m.stream().synchronize()  # expect: XST101 (Manager guarantees it)


def use_prop(m):
    m.current.synchronize()  # expect: XST101


class Sched:
    def __init__(self, m):
        self.m = m

    def step(self):
        self.m.stream().synchronize()  # expect: XST101


def main(h):
    use(Manager(h))
    use_prop(Manager(h))
    Sched(Manager(h)).step()
