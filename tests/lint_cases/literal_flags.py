# Literal constants (issue 27, point 6): a True/False/integer literal decides the branch
# that tests it, also in a helper given the literal as an argument or as its default.
import contextlib

import torch
from torch_npu.npu import ExternalStream


def maybe_on(s, enable):
    return torch.npu.stream(s) if enable else contextlib.nullcontext()


def maybe_on_if(s, enable=False):
    if enable:
        return torch.npu.stream(s)
    return contextlib.nullcontext()


def maybe_sync(s, do_sync=False):
    if not do_sync:
        return
    s.synchronize()


def run(s, enable=True):
    with maybe_on(s, enable):
        torch.npu.current_stream().synchronize()


def poll_while(s, polling):
    while polling:
        s.query()
        break


with maybe_on(ExternalStream(1), False):
    torch.npu.current_stream().synchronize()
with maybe_on(ExternalStream(1), True):
    torch.npu.current_stream().synchronize()  # XST101
with maybe_on(ExternalStream(1), 0):
    torch.npu.current_stream().synchronize()
with maybe_on(ExternalStream(1), None):  # None is not followed as a flag: both branches
    torch.npu.current_stream().synchronize()  # XST101(may)
with maybe_on_if(ExternalStream(2)):
    torch.npu.current_stream().synchronize()
with maybe_on_if(ExternalStream(2), enable=True):
    torch.npu.current_stream().synchronize()  # XST101
with maybe_on_if(torch.npu.Stream(), enable=True):
    torch.npu.current_stream().synchronize()

maybe_sync(ExternalStream(3))
maybe_sync(ExternalStream(3), do_sync=False)
maybe_sync(ExternalStream(3), True)  # XST101
maybe_sync(torch.npu.Stream(), True)

# The flag passed on by another helper, and that helper's literal default.
run(ExternalStream(4), False)
run(ExternalStream(4))  # XST101
run(torch.npu.Stream())

poll_while(ExternalStream(5), False)
poll_while(ExternalStream(5), True)  # XST102


# A flag whose value is not a literal keeps both branches ("may").
def flagged(s, flag):
    with maybe_on(s, flag):
        torch.npu.current_stream().synchronize()


flagged(ExternalStream(6), input() == "y")  # XST101(may)

# A module constant decides its branches too.
DEBUG_SYNC = False
if DEBUG_SYNC:
    ExternalStream(7).synchronize()
if not DEBUG_SYNC:
    ExternalStream(7).query()  # XST102
