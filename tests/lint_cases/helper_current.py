# Helpers that make a stream current on some paths only: what is current after the call.
import torch
from torch_npu.npu import ExternalStream


def maybe_use(s, c):
    if c:
        torch.npu.set_stream(s)


def maybe_use_else(s, c):
    if not c:
        pass
    else:
        torch.npu.set_stream(s)


def maybe_reset(c):
    if c:
        torch.npu.set_stream(torch.npu.Stream())


def always_use(s):
    torch.npu.set_stream(s)


def set_on_some_paths(h, c):
    maybe_use(ExternalStream(h), c)
    torch.npu.super_kernel_scope_begin()  # XST108(may)


def set_in_the_else_branch(h, c):
    maybe_use_else(ExternalStream(h), c)
    torch.npu.super_kernel_scope_begin()  # XST108(may)


def reset_on_some_paths(h, c):
    torch.npu.set_stream(ExternalStream(h))
    maybe_reset(c)
    torch.npu.super_kernel_scope_begin()  # XST108(may)


def managed_stays_silent(c):
    maybe_use(torch.npu.Stream(), c)
    maybe_use_else(torch.npu.Stream(), c)
    torch.npu.super_kernel_scope_begin()
    always_use(torch.npu.Stream())
    torch.npu.super_kernel_scope_begin()


def always(h):
    always_use(ExternalStream(h))
    torch.npu.super_kernel_scope_begin()  # XST108
