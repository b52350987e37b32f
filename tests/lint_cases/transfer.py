# After transfer_to_npu, torch.cuda's stream names are torch_npu's.
import torch
import torch_npu
import torch_npu.contrib.transfer_to_npu

ext = torch.cuda.ExternalStream(h)
ext.synchronize()  # XST101
with torch.cuda.stream(ext):
    torch.cuda.current_stream().query()  # XST102
    g = torch.cuda.CUDAGraph()
    g.capture_begin()  # XST106
with torch.cuda.graph(g, stream=ext):  # XST106
    pass
torch.cuda.Stream().synchronize()
