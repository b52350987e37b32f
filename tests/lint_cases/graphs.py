# EXS106 capture, EXS107 task groups, EXS108 super-kernel scopes.
import torch
import torch_npu
from torch_npu.npu import ExternalStream, NPUGraph

ext = ExternalStream(handle)
g = torch.npu.NPUGraph()

with torch.npu.graph(g, stream=ext):  # EXS106
    y = model(x)
with torch.npu.graph(g, None, ext):  # EXS106
    pass
ctx = torch_npu.npu.graph(g, stream=ext)  # EXS106

with torch.npu.stream(ext):
    g.capture_begin()  # EXS106
    g.capture_end()  # EXS106
    with torch.accelerator.Graph():  # EXS106
        pass
    torch.npu.super_kernel_scope_begin()  # EXS108
    torch.npu.super_kernel_scope_end("scope")  # EXS108
    torch.ops.npu.super_kernel_scope_begin()  # EXS108
    # Works: torch.npu.graph(g) captures on its own stream; replay on ext is fine.
    with torch.npu.graph(g):
        y = model(x)
    g.replay()
    torch.npu.make_graphed_callables(model, (x,))

with ext, torch.accelerator.Graph():  # EXS106
    pass

torch.npu.graph_task_group_begin(ext)  # EXS107
torch.npu.graph_task_group_end(stream=ext)  # EXS107
torch.npu.graph_task_update_begin(ext, handle)  # EXS107
torch.npu.graph_task_update_end(ext)  # EXS107
torch_npu._C._graph_task_group_begin(ext)  # EXS107

torch.npu.graph.default_capture_stream = ext
with torch.npu.graph(g):  # EXS106
    pass

# Managed streams: all fine.
s = torch.npu.Stream()
with torch.npu.graph(NPUGraph(), stream=s):
    pass
torch.npu.graph_task_group_begin(s)
g.capture_begin()
g.capture_end()
torch.npu.super_kernel_scope_begin()
with torch.accelerator.Graph():
    pass
with torch.cuda.graph(g, stream=ext):
    pass
