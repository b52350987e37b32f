# torch.npu.graph.default_capture_stream is a class attribute, i.e. process-wide state.
import torch
from torch_npu.npu import ExternalStream

ext = ExternalStream(HANDLE)
torch.npu.graph.default_capture_stream = ext


def capture(g, model, x):
    # spec 2.1 X17: torch.npu.graph(g) captures on default_capture_stream, here ext
    with torch.npu.graph(g):  # XST106
        return model(x)
