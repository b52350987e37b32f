# How control flow moves the current stream (spec 2.1 "current", section 5).
import contextlib

import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream

_EXT = None


def init_stream(handle):
    global _EXT
    _EXT = ExternalStream(handle)


def sync_global():
    # spec 2.1 X01: the module global holds the ExternalStream made by init_stream()
    _EXT.synchronize()  # XST101


def stop_early(handle, loader, model):
    ext = ExternalStream(handle)
    for batch in loader:
        with torch.npu.stream(ext):
            if model(batch) is None:
                break
    # spec 5: leaving the with block, also by break, restores the previous stream
    torch.npu.current_stream().synchronize()


def skip_batches(handle, loader, model, grads):
    ext = ExternalStream(handle)
    for batch in loader:
        # spec 2.4: the with block below has been left (continue runs __exit__) here
        dist.all_reduce(grads)
        with torch.npu.stream(ext):
            if batch is None:
                continue
            model(batch)


def restore_in_finally(handle, items, model):
    ext = ExternalStream(handle)
    for item in items:
        torch.npu.set_stream(ext)
        try:
            if model(item):
                break
        finally:
            torch.npu.set_stream(torch.npu.default_stream())
    torch.npu.current_stream().synchronize()


def optional_stream(handle, t):
    ext = ExternalStream(handle) if handle else None
    with torch.npu.stream(ext):
        # torch.npu.stream(None) is a no-op (spec 2.2), so ext is current on some paths only
        dist.all_reduce(t)  # XST111(may)


def optional_context(handle, t, use_ext):
    ext = ExternalStream(handle)
    ctx = torch.npu.stream(ext) if use_ext else contextlib.nullcontext()
    with ctx:
        # spec 2.4 X19: ext is current when use_ext
        dist.all_reduce(t)  # XST111(may)


def restore_saved(handle, t):
    ext = ExternalStream(handle)
    torch.npu.set_stream(ext)
    saved = torch.npu.current_stream()
    torch.npu.set_stream(torch.npu.default_stream())
    dist.all_reduce(t)
    # saved carries ext's id (spec 5, current_stream() == ext): ext is current again
    torch.npu.set_stream(saved)
    torch.npu.current_stream().synchronize()  # XST101


def error_path(handle, model, x):
    ext = ExternalStream(handle)
    try:
        torch.npu.set_stream(ext)
        y = model(x)
        torch.npu.set_stream(torch.npu.default_stream())
    except RuntimeError:
        # spec 2.1 X01: if model(x) raised, ext is still current here
        torch.npu.current_stream().synchronize()  # XST101(may)
        raise
    return y
