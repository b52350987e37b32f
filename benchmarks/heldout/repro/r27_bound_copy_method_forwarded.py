# a pinned tensor's bound `.to` passed to a helper that calls it with forwarded *args/**kwargs on an
# external stream: the attribute read gave a tensor, not the method with its receiver
import torch
from torch_npu.npu import ExternalStream


def run_on(h, fn, *args, **kwargs):
    with torch.npu.stream(ExternalStream(h)):
        return fn(*args, **kwargs)


def upload(h, host):
    staging = host.pin_memory()
    return run_on(h, staging.to, "npu", non_blocking=True)  # expect: XST201
