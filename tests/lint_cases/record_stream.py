# XST105 Tensor.record_stream.
import torch
import torch_npu

ext = torch_npu.npu.ExternalStream(handle)
t = torch.empty(4, device="npu")
t.record_stream(ext)  # XST105
t.record_stream(s=ext)  # XST105
torch.Tensor.record_stream(t, ext)  # XST105
torch.ops.aten.record_stream(t, ext)  # XST105
torch.ops.aten.record_stream.default(t, ext)  # XST105
with torch.npu.stream(ext):
    t.record_stream(torch.npu.current_stream())  # XST105
    t.record_stream(torch.accelerator.current_stream())  # XST105
    u = t + 1

s = torch.npu.Stream()
t.record_stream(s)
t.record_stream(torch.npu.current_stream())
torch.Tensor.record_stream(t, s)
