# XST106 capture, XST107 task groups, XST108 super-kernel scopes.
import torch
import torch_npu
from torch_npu.npu import ExternalStream, NPUGraph

ext = ExternalStream(handle)
g = torch.npu.NPUGraph()

with torch.npu.graph(g, stream=ext):  # XST106
    y = model(x)
with torch.npu.graph(g, None, ext):  # XST106
    pass
ctx = torch_npu.npu.graph(g, stream=ext)  # XST106

with torch.npu.stream(ext):
    g.capture_begin()  # XST106
    g.capture_end()  # XST106
    with torch.accelerator.Graph():  # XST106
        pass
    torch.npu.super_kernel_scope_begin()  # XST108
    torch.npu.super_kernel_scope_end("scope")  # XST108
    torch.ops.npu.super_kernel_scope_begin()  # XST108
    # Works: torch.npu.graph(g) captures on its own stream; replay on ext works, and aborts
    # the process later only if the graph used random numbers (XST202, off by default).
    with torch.npu.graph(g):
        y = model(x)
    g.replay()  # XST202: 5
    torch.npu.make_graphed_callables(model, (x,))

with ext, torch.accelerator.Graph():  # XST106
    pass

torch.npu.graph_task_group_begin(ext)  # XST107
torch.npu.graph_task_group_end(stream=ext)  # XST107
torch.npu.graph_task_update_begin(ext, handle)  # XST107
torch.npu.graph_task_update_end(ext)  # XST107
torch_npu._C._graph_task_group_begin(ext)  # XST107

torch.npu.graph.default_capture_stream = ext
with torch.npu.graph(g):  # XST106
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
