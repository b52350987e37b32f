# NPU graph replay while an external stream is current (XST202, off by default): the process
# aborts when the graph is reset or freed if the graph used random numbers. Traps: replay
# under managed streams or none, a receiver not known to be an NPU graph, a CUDA graph.
import torch

ext = torch.npu.ExternalStream(handle)
managed = torch.npu.Stream()
g = torch.npu.NPUGraph()
cuda_graph = torch.cuda.CUDAGraph()

with torch.npu.stream(ext):
    g.replay()  # XST202: 5
    something.replay()
    cuda_graph.replay()
with torch.npu.stream(managed):
    g.replay()
g.replay()
with ext:
    g.replay()  # XST202: 5

# callables made by make_graphed_callables replay their graph when called
step = torch.npu.make_graphed_callables(model, (x,))
(first, second) = torch.npu.make_graphed_callables((model_a, model_b), ((x,), (y,)))
with torch.npu.stream(ext):
    step(x)  # XST202: 5
    first(x)  # XST202: 5
    model(x)
with torch.npu.stream(managed):
    step(x)
    second(y)
step(x)
