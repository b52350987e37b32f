"""Host-side staging helpers."""

import torch


def pinned(t):
    return t.contiguous().pin_memory()


def upload(t, device, **opts):
    return t.to(device=device, **opts)


def copy_into(dst, src, flag):
    dst.copy_(src, non_blocking=flag)
    return dst


def host_buffer(shape, dtype, pin=True):
    return torch.empty(shape, dtype=dtype, pin_memory=pin)
