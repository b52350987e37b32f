# a pinned tensor's bound method handed to a helper that calls it under the external stream
import torch
from torch_npu.npu import ExternalStream


def run_on(h, fn, *args, **kwargs):
    with torch.npu.stream(ExternalStream(h)):
        return fn(*args, **kwargs)


def upload(h, host):
    staging = host.pin_memory()
    return run_on(h, staging.to, "npu", non_blocking=True)  # expect: XST201


def upload_lambda(h, host):
    staging = host.pin_memory()
    return run_on(h, lambda: staging.to("npu", non_blocking=True))  # expect: XST201
