"""Code ported from CUDA: torch.cuda names are remapped to torch.npu by transfer_to_npu."""

import torch
import torch_npu
import torch_npu.contrib.transfer_to_npu  # noqa: F401

from .handles import StreamHandle


class CudaStyleRunner:
    def __init__(self, handle: StreamHandle):
        self.stream = torch.cuda.ExternalStream(int(handle), device=handle.device)
        self.side = torch.cuda.Stream(device=handle.device)
        self.graph = torch.cuda.CUDAGraph()

    def run(self, fn, x: torch.Tensor) -> torch.Tensor:
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            y = fn(x)
        self.stream.wait_stream(self.side)  # expect: XST104
        return y

    def capture(self, fn, x: torch.Tensor) -> torch.Tensor:
        with torch.cuda.stream(self.stream):
            self.graph.capture_begin()  # expect: XST106
            y = fn(x)
            self.graph.capture_end()  # maybe: XST106
        return y

    def capture_default(self, fn, x: torch.Tensor) -> torch.Tensor:
        with torch.cuda.graph(self.graph):
            y = fn(x)
        with torch.cuda.stream(self.stream):
            self.graph.replay()
        return y

    def finish(self) -> None:
        torch.cuda.synchronize()
        self.side.synchronize()
