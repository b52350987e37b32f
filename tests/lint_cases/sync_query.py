# XST101 synchronize() / XST102 query().
import torch
from torch_npu.npu import ExternalStream

ext = ExternalStream(handle)
ext.synchronize()  # XST101
ext.query()  # XST102
torch.Stream.synchronize(ext)  # XST101
torch.npu.Stream.query(ext)  # XST102
ExternalStream(handle).synchronize()  # XST101

with torch.npu.stream(ext):
    torch.npu.current_stream().synchronize()  # XST101
    torch.npu.current_stream().query()  # XST102
    torch.accelerator.current_stream().synchronize()  # XST101
    cur = torch.npu.current_stream()
    cur.query()  # XST102
    torch.npu.synchronize()
    torch.accelerator.synchronize()

# After the block the current stream is torch_npu's again.
torch.npu.current_stream().synchronize()

# Ordinary streams support everything.
s = torch.npu.Stream()
s.synchronize()
s.query()
torch.npu.default_stream().synchronize()
torch.cuda.ExternalStream(handle).synchronize()
torch.Stream.synchronize(s)

# Reassignment to a managed stream clears it.
ext = torch.npu.Stream()
ext.synchronize()
