# a base-class method calls an abstract self.stream() that two subclasses implement:
# reported in the base method as definite (the managed subclass uses it too),
# not at the external instance's call
import abc

import torch
from torch_npu.npu import ExternalStream


class Provider(abc.ABC):
    @abc.abstractmethod
    def stream(self): ...

    def fence(self):
        self.stream().synchronize()


class Runtime(Provider):
    def __init__(self, h):
        self.h = h

    def stream(self):
        return ExternalStream(self.h)


class Managed(Provider):
    def stream(self):
        return torch.npu.Stream()


def positive(h):
    Runtime(h).fence()  # expect: XST101


def negative():
    Managed().fence()
