# after transfer_to_npu, `torch.cuda.CUDAGraph()` resolved attribute by attribute (torch.cuda, then
# .CUDAGraph on torch_npu.npu) was not renamed to NPUGraph: a graph kept on self was unknown
import torch
import torch_npu.contrib.transfer_to_npu


class Runner:
    def __init__(self, h):
        self.stream = torch.cuda.ExternalStream(h)
        self.graph = torch.cuda.CUDAGraph()

    def capture(self, fn, x):
        with torch.cuda.stream(self.stream):
            self.graph.capture_begin()  # expect: XST106
            return fn(x)
