# a weak reference (a holder object) the class's own __init__ makes to its own external
# stream, dereferenced in a method no visible caller calls (not followed: the class-level
# guarantee joins external streams, not holders of them; p12 lanes.py)
import weakref

from torch_npu.npu import ExternalStream


class Lane:
    def __init__(self, h):
        self._stream = ExternalStream(h)
        self._ref = weakref.ref(self._stream)

    def flush(self):
        s = self._ref()
        if s is not None:
            s.synchronize()  # expect: XST101
