# Non-blocking copies between pinned host memory and the NPU while an external stream is
# current (XST201), and the same with pinnedness unknown (XST211, off by default). Each
# positive has a trap of the same shape: pageable memory, .cpu(), non_blocking=False, a
# managed stream, an NPU-to-NPU copy, no external stream current.
import torch
from torch.utils.data import DataLoader

ext = torch.npu.ExternalStream(handle)
managed = torch.npu.Stream()
pinned = torch.empty(8, pin_memory=True)
pageable = torch.empty(8)
also_pinned = pageable.pin_memory()
loader = DataLoader(dataset, batch_size=4, pin_memory=True)
plain_loader = DataLoader(dataset, batch_size=4)

with torch.npu.stream(ext):
    out = torch.ones(8, device="npu")
    # device to host: torch_npu allocates a pinned result, always armed
    host = out.to("cpu", non_blocking=True)  # XST201: 12
    host = out.cpu()
    host = out.to("cpu")
    host = out.to("cpu", non_blocking=False)
    host = pageable.to("cpu", non_blocking=True)  # already on the host: no copy
    # host to device from visibly pinned memory
    dev = pinned.to("npu", non_blocking=True)  # XST201: 11
    dev = pageable.to("npu", non_blocking=True)
    dev = also_pinned.npu(non_blocking=True)  # XST201: 11
    dev = also_pinned.npu()
    dev = pinned.to(torch.device("npu", 0), torch.float32, True)  # XST201: 11
    dev = pinned.to(torch.device("npu", 0), torch.float32, False)
    out.copy_(pinned, non_blocking=True)  # XST201: 5
    out.copy_(pageable, non_blocking=True)
    pinned.copy_(out, non_blocking=True)  # XST201: 5
    pinned.copy_(out)
    pinned.untyped_storage().copy_(out.untyped_storage(), non_blocking=True)  # XST201: 5
    out.copy_(other=pinned, non_blocking=True)  # XST201: 5
    out.copy_(other=pageable, non_blocking=True)
    pageable.untyped_storage().copy_(out.untyped_storage(), non_blocking=True)
    # a view of pinned memory is pinned; a new tensor computed from it is not
    dev = pinned[0].to("npu", non_blocking=True)  # XST201: 11
    dev = pinned[:4].to("npu", non_blocking=True)  # XST201: 11
    dev = pageable[:4].to("npu", non_blocking=True)
    dev = pinned.float().to("npu", non_blocking=True)
    # a device the analysis cannot read: a pinned tensor only moves to a device
    dev = pinned.to(device, non_blocking=True)  # XST201: 11
    dev = pageable.to(device, non_blocking=True)
    dev = pinned.to(device)
    half = pinned.to(torch.float16, non_blocking=True)  # a dtype: no device copy
    dev = incoming.to(device, non_blocking=True)  # XST211: 11
    dev = out.to(device, non_blocking=True)
    # NPU to NPU
    other = torch.zeros(8, device="npu")
    other.copy_(out, non_blocking=True)
    # batches of a pinning DataLoader are pinned
    for x, y in loader:
        x.to("npu", non_blocking=True)  # XST201: 9
        y.to("npu")
    for batch in plain_loader:
        batch.to("npu", non_blocking=True)  # XST211: 9
        batch.to("npu", non_blocking=False)
    # pinnedness unknown: off by default
    incoming.to("npu", non_blocking=True)  # XST211: 5
    incoming.to("npu")
    out.copy_(incoming, non_blocking=True)  # XST211: 5
    out.copy_(incoming)
    incoming.npu(non_blocking=True)  # XST211: 5
    incoming.npu(0)

# The same copies while a managed stream is current, or with no external stream current.
with torch.npu.stream(managed):
    out = torch.ones(8, device="npu")
    host = out.to("cpu", non_blocking=True)
    dev = pinned.to("npu", non_blocking=True)
    out.copy_(pinned, non_blocking=True)
    incoming.to("npu", non_blocking=True)
host = out.to("cpu", non_blocking=True)
dev = pinned.to("npu", non_blocking=True)
pinned.copy_(out, non_blocking=True)

# ``with ext:`` and set_stream make it current too.
with ext:
    ready = torch.ones(8, device="npu:0")
    ready.to("cpu", non_blocking=True)  # XST201: 5
    ready.to("cpu")
torch.npu.set_stream(ext)
pinned.to("npu", non_blocking=True)  # XST201: 1
pageable.to("npu", non_blocking=True)
torch.npu.set_stream(managed)
pinned.to("npu", non_blocking=True)
