"""r74 (p22_graphc backends.py ``pick_backend("native")``, hovf): a factory whose literal
argument picks the class it returns was not learnt per literal (its summary returns no
stream, only objects whose methods make one), so every backend's ``flush()`` was "may be"
external. Fixed: such a factory's summary counts as reading streams
(abstract/holding.py ``makes_streams``)."""

import torch
import torch_npu


class Backend:
    def make_stream(self):
        raise NotImplementedError

    def flush(self):
        self.make_stream().synchronize()


class VendorBackend(Backend):
    def __init__(self, handle):
        self.handle = handle

    def make_stream(self):
        return torch_npu.npu.ExternalStream(self.handle)


class NativeBackend(Backend):
    def make_stream(self):
        return torch.npu.Stream()


BACKENDS = {"vendor": VendorBackend, "native": NativeBackend}


def pick_backend(name, handle=0):
    if name == "vendor":
        return VendorBackend(handle)
    return BACKENDS[name]()


def run(handle):
    pick_backend("vendor", handle).flush()  # expect: XST101
    pick_backend("native").flush()
