# EXS101 synchronize() / EXS102 query().
import torch
from torch_npu.npu import ExternalStream

ext = ExternalStream(handle)
ext.synchronize()  # EXS101
ext.query()  # EXS102
torch.Stream.synchronize(ext)  # EXS101
torch.npu.Stream.query(ext)  # EXS102
ExternalStream(handle).synchronize()  # EXS101

with torch.npu.stream(ext):
    torch.npu.current_stream().synchronize()  # EXS101
    torch.npu.current_stream().query()  # EXS102
    torch.accelerator.current_stream().synchronize()  # EXS101
    cur = torch.npu.current_stream()
    cur.query()  # EXS102
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
