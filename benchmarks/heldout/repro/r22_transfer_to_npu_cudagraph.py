# after transfer_to_npu, torch.cuda.CUDAGraph is NPUGraph: capture_begin() under an external stream
import torch
import torch_npu.contrib.transfer_to_npu


def attribute(h, fn, x):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.stream(torch.cuda.ExternalStream(h)):
        g.capture_begin()  # expect: XST106
        fn(x)
        g.capture_end()


class Runner:
    def __init__(self, h):
        self.stream = torch.cuda.ExternalStream(h)
        self.graph = torch.cuda.CUDAGraph()

    def capture(self, fn, x):
        with torch.cuda.stream(self.stream):
            self.graph.capture_begin()  # expect: XST106
            fn(x)
