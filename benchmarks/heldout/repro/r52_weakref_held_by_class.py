# a weak reference (a holder object) the class's own __init__ makes to its own external
# stream, dereferenced in a method no visible caller calls. FIXED (found at 6b5c80c: the
# weakref flow-model rows apply to the class-level join; cases
# class_guarantees/weakref_held_by_class, weakref_proxy_held_by_class,
# weak_method_held_by_class; p12 lanes.py)
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
