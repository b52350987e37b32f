# What torch_npu supports on external streams (contract section 5): nothing here is flagged.
import torch
import torch_npu
from torch_npu.npu import ExternalEvent, ExternalStream

ext = ExternalStream(handle, device=0)
with torch.npu.stream(ext):
    y = model(x)
    z = torch.randn(4, device="npu")
    z.cpu()
    print(z.item())
    g.replay()
    with torch.npu.graph(g):
        model(x)
    torch.npu.make_graphed_callables(model, (x,))
    torch.npu.is_current_stream_capturing()
torch.npu.set_stream(ext)
torch.accelerator.set_stream(ext)
torch.npu.set_stream(torch.npu.default_stream())
torch.npu.synchronize()
torch.accelerator.synchronize()
ExternalEvent().reset(ext)
torch_npu.npu._launch_host_func_pending(ext, fn, data)
torch.npu.set_stream_limit(ext, 1, 1)
print(ext.device, ext.device_index, ext.device_type, ext.stream_id, ext.npu_stream)
ext == torch.npu.current_stream()
isinstance(ext, torch.npu.Stream)
hash(ext)
repr(ext)

# Ordinary torch_npu streams support every operation.
s = torch.npu.Stream()
e = torch.npu.Event()
s.synchronize()
s.query()
s.record_event()
s.wait_event(e)
s.wait_stream(torch.npu.current_stream())
e.record(s)
e.wait(s)
y.record_stream(s)
with torch.npu.graph(g, stream=s):
    pass
torch.npu.graph_task_group_begin(s)
torch_npu.npu._launch_host_func(s, fn, data)
torch_npu.npu._subscribe_report(s)
with torch.npu.stream(s):
    torch.npu.current_stream().synchronize()
    torch.npu.super_kernel_scope_begin()
    torch.distributed.all_reduce(y)
    e.record()
    g.capture_begin()

# CUDA's ExternalStream supports all of it.
c = torch.cuda.ExternalStream(handle)
c.synchronize()
c.query()
c.record_event()
with torch.cuda.stream(c):
    torch.cuda.current_stream().synchronize()
    torch.distributed.all_reduce(y)
    torch.cuda.graph(g)
y.record_stream(c)

# Unrelated objects with the same method names.
queue.synchronize()
future.query()
threading_event.wait()
timer.record()

# A CUDA graph is not an NPU graph, even while an NPU external stream is current.
cuda_graph = torch.cuda.CUDAGraph()
with torch.npu.stream(ext):
    cuda_graph.capture_begin()
    cuda_graph.capture_end()
