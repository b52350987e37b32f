# After transfer_to_npu, torch.cuda is torch_npu's and so are the cuda spellings of copies:
# Tensor.cuda(non_blocking=True), "cuda" and "cuda:1" devices (XST201, XST112). The twins:
# pageable memory, blocking copies, a managed stream, a module moved to its device.
import torch
import torch_npu
from torch_npu.contrib import transfer_to_npu

ext = torch.cuda.ExternalStream(handle, device="cuda:0")
managed = torch.cuda.Stream()
pinned = torch.empty(8, pin_memory=True)
pageable = torch.empty(8)
model = Net().to("cuda:1")

with torch.cuda.stream(ext):
    pinned.cuda(non_blocking=True)  # XST201: 5
    pinned.cuda(0, True)  # XST201: 5
    pageable.cuda(non_blocking=True)
    pinned.cuda()
    pinned.to("cuda", non_blocking=True)  # XST201: 5
    pinned.to("cuda:0", non_blocking=True)  # XST201: 5
    pageable.to("cuda:0", non_blocking=True)
    out = torch.ones(4, device="cuda:0")
    out.to("cpu", non_blocking=True)  # XST201: 5
    out.cuda(1)  # XST112: 5
    out.to("cuda:1")  # XST112: 5
    out.cuda(0)
    y = model(batch)  # computed on the module's device, npu:1
    y.to("cuda:0")  # XST112: 5
    y.to("cuda:1")
with torch.cuda.stream(managed):
    pinned.cuda(non_blocking=True)
    out.cuda(1)
