# XST201 through the ways real code spells a pinned non_blocking copy: non_blocking in a **
# dict (a display, dict(...), one kept on an object or returned by a helper), buffers pinned
# by functools.partial factories and by helpers, and the current stream as a subclass or a
# nested region leaves it. Each positive has a pageable or blocking twin.
import functools

import torch

ext = torch.npu.ExternalStream(handle)
managed = torch.npu.Stream()
pinned = torch.empty(8, pin_memory=True)
pageable = torch.empty(8)
fast = dict(non_blocking=True)
slow = {"non_blocking": False}
pinned_zeros = functools.partial(torch.zeros, pin_memory=True)
pinned_empty = functools.partial(torch.empty, 8, pin_memory=True)
plain_zeros = functools.partial(torch.zeros, dtype=torch.float16)


def copy_options():
    return {"non_blocking": True}


def staging(n):
    return torch.empty(n, pin_memory=True)


class Offload:
    def __init__(self):
        self.opts = dict(non_blocking=True)
        self.host = pinned_zeros(16)
        self.spare = plain_zeros(16)


with torch.npu.stream(ext):
    pinned.to("npu", **fast)  # XST201: 5
    pinned.to("npu", **slow)
    pageable.to("npu", **fast)
    pinned.npu(**{"non_blocking": True})  # XST201: 5
    pinned.npu(**{"non_blocking": False})
    pinned.to("npu", **copy_options())  # XST201: 5
    pageable.to("npu", **copy_options())
    pinned_zeros(4).to("npu", non_blocking=True)  # XST201: 5
    plain_zeros(4).to("npu", non_blocking=True)
    pinned_empty().npu(non_blocking=True)  # XST201: 5
    pinned_empty().npu()
    staging(4).to("npu", non_blocking=True)  # XST201: 5
    staging(4).to("npu")
    box = Offload()
    box.host.to("npu", **box.opts)  # XST201: 5
    box.spare.to("npu", **box.opts)
    with torch.npu.stream(managed):  # the region re-entered with a managed stream
        pinned.to("npu", **fast)
    pinned.to("npu", **fast)  # XST201: 5


class Loader:
    def enter(self):
        torch.npu.set_stream(ext)

    def load(self):
        self.enter()
        pinned.npu(non_blocking=True)  # XST201: 9


class ManagedLoader(Loader):
    # Its override makes a managed stream current: its view of load() copies on it.
    def enter(self):
        torch.npu.set_stream(managed)


class OwnLoader(Loader):
    def load(self):
        with torch.npu.stream(managed):
            pinned.npu(non_blocking=True)


# A helper's copy of a tensor it is given, on its caller's current stream: XST201 where the
# caller passes pinned memory, nothing for pageable memory, XST211 (opt-in) for unknown.
def upload(t):
    return t.to("npu", non_blocking=True)


def upload_into(dst, src):
    dst.copy_(src, non_blocking=True)


with torch.npu.stream(ext):
    upload(pinned)  # XST201: 5
    upload(pageable)
    upload(incoming)  # XST211: 5
    upload_into(torch.empty(8, device="npu"), pinned)  # XST201: 5
    upload_into(torch.empty(8, device="npu"), pageable)
upload(pinned)
with torch.npu.stream(managed):
    upload(pinned)


# The flag as a parameter of the helper (a default, or a literal at the call): the helper is
# learnt with that literal, as for a flag its body tests.
def upload_flag(t, non_blocking=True):
    return t.to("npu", non_blocking=non_blocking)


with torch.npu.stream(ext):
    upload_flag(pinned)  # XST201: 5
    upload_flag(pinned, non_blocking=False)
    upload_flag(pinned, False)
    upload_flag(pageable)
    upload_flag(pageable, True)
