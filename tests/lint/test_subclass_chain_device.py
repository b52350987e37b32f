"""A subclass view is made only where a class's meaning of an attribute differs from its
base's: a stream each class's ``__init__`` chain joins anew (its device parameter read again
at every ``super().__init__``) is the same stream, so the call on a sub-subclass's instance
applies the base's summary through ``self`` and reports there (held-out p7, repro r55).
Not a conformance case yet: the "may be" inside ``Worker.barrier`` is still reported too
(two places for one defect), as for a subclass made in a module with no visible caller."""

from __future__ import annotations

from extstream_lint.analysis import analyze_source

SOURCE = """\
# a stream made on a device parameter in a subclass's __init__, handed up through
# super().__init__ chains: each class's join of the attribute is made anew (the device read
# again in its own __init__), the same stream: a sub-subclass's instance calling the base's
# method is reported at that call, as one made without a device is
import torch
from torch_npu.npu import ExternalStream


class Worker:
    def __init__(self, device, stream=None):
        self.device = device
        self.stream = stream if stream is not None else torch.npu.Stream(device=device)

    def barrier(self):
        self.stream.synchronize()


class ForeignWorker(Worker):
    def __init__(self, device, handle):
        super().__init__(device, stream=ExternalStream(handle, device=device))


class TracingWorker(ForeignWorker):
    def __init__(self, device, handle, tag):
        super().__init__(device, handle)
        self.tag = tag


class ManagedWorker(Worker):
    def __init__(self, device):
        super().__init__(device, stream=torch.npu.Stream(device=device))


class TracingManagedWorker(ManagedWorker):
    def __init__(self, device, tag):
        super().__init__(device)
        self.tag = tag


def positive(handle):
    w = TracingWorker(0, handle, "t0")
    w.barrier()  # expect: XST101


# negative: the same chain over a managed stream
def negative():
    w = TracingManagedWorker(0, "t0")
    w.barrier()
"""


def _lines_of(code: str) -> list[int]:
    return sorted(f.line for f in analyze_source(SOURCE, "chain.py") if f.code == code)


def _line(text: str, last: bool = False) -> int:
    found = [n for n, line in enumerate(SOURCE.splitlines(), 1) if line.strip() == text]
    return found[-1] if last else found[0]


def test_the_call_on_the_sub_subclass_instance_is_reported() -> None:
    assert _line("w.barrier()  # expect: XST101") in _lines_of("XST101")


def test_the_managed_chain_is_silent_at_its_call() -> None:
    assert _line("w.barrier()", last=True) not in _lines_of("XST101")
