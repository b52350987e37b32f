# After transfer_to_npu, torch.cuda's stream names are torch_npu's.
import torch
import torch_npu
import torch_npu.contrib.transfer_to_npu

ext = torch.cuda.ExternalStream(h)
ext.synchronize()  # EXS101
with torch.cuda.stream(ext):
    torch.cuda.current_stream().query()  # EXS102
    g = torch.cuda.CUDAGraph()
    g.capture_begin()  # EXS106
with torch.cuda.graph(g, stream=ext):  # EXS106
    pass
torch.cuda.Stream().synchronize()
