# A local class, parameter or variable with a torch_npu name is not torch_npu's.
import torch
import torch_npu


class ExternalStream:
    def __init__(self, ptr):
        self.ptr = ptr

    def synchronize(self):
        pass


ExternalStream(0).synchronize()


def f(torch_npu):
    torch_npu.npu.ExternalStream(h).synchronize()


def g():
    torch = FakeTorch()
    torch.npu.ExternalStream(h).synchronize()


def h(ExternalStream):
    ExternalStream(0).synchronize()


torch_npu.npu.ExternalStream(h).synchronize()  # XST101
