# Without transfer_to_npu, torch.cuda and the cuda spellings are CUDA's: copies to a CUDA
# device under an NPU external stream are not torch_npu's copies (no XST201, no XST112),
# while the NPU spellings on the same lines still are.
import torch

ext = torch.npu.ExternalStream(handle, device=0)
pinned = torch.empty(8, pin_memory=True)

with torch.npu.stream(ext):
    pinned.cuda(non_blocking=True)
    pinned.to("cuda", non_blocking=True)
    pinned.to("cuda:1", non_blocking=True)
    pinned.npu(non_blocking=True)  # XST201: 5
    on_gpu = torch.ones(4, device="cuda:0")
    on_gpu.to("cuda:1")
    on_npu = torch.ones(4, device="npu:0")
    on_npu.to("npu:1")  # XST112: 5
    on_gpu = pinned.cuda()
    on_gpu.to("npu", non_blocking=True)  # a CUDA tensor: not torch_npu's pinned memory
