# callbacks called through getattr(cb, hook_name)(self): the hook's body is not followed
import torch
from torch_npu.npu import ExternalStream


class Timer:
    def on_end(self, trainer):
        trainer.s.synchronize()


class Trainer:
    def __init__(self, h):
        self.s = ExternalStream(h)
        self.callbacks = [Timer()]

    def emit(self, hook):
        for cb in self.callbacks:
            getattr(cb, hook)(self)

    def emit_direct(self):
        for cb in self.callbacks:
            cb.on_end(self)


def main(h):
    t = Trainer(h)
    t.emit("on_end")  # expect: XST101 (or at line 8: Trainer guarantees it)
    t.emit_direct()  # found (reported at line 22, the call passing self)
