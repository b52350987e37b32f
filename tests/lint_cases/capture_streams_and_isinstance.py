# Capture streams, torch.accelerator.Graph, isinstance guards (spec 2.2, 6).
import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream

EXT = ExternalStream(HANDLE)


def capture_with_collective(g, model, x):
    with torch.npu.stream(EXT):
        # spec 2.2: torch.npu.graph(g) makes its own managed capture stream current
        with torch.npu.graph(g):
            y = model(x)
            dist.all_reduce(y)
        g.replay()
        dist.all_reduce(y)  # XST111
    return y


def accelerator_graph(model, x):
    graph = torch.accelerator.Graph()
    with torch.npu.stream(EXT):
        # spec 2.1 X17/X18: torch.accelerator.Graph capture uses the current stream
        graph.capture_begin()  # XST106
        y = model(x)
        graph.capture_end()  # XST106
    return y


def guarded_sync(model, x):
    with torch.npu.stream(EXT):
        y = model(x)
        cur = torch.npu.current_stream()
        # spec 6: current_stream() returns a plain Stream, so the guard lets ext through
        if not isinstance(cur, ExternalStream):
            cur.synchronize()  # XST101
    return y


def guarded_query(handle):
    s = torch.npu.Stream(stream_ptr=handle)
    # spec 3/6: Stream(stream_ptr=...) is external but not an ExternalStream instance
    if isinstance(s, ExternalStream):
        return None
    return s.query()  # XST102


class Pipeline:
    def __init__(self, handle):
        self._ext = ExternalStream(handle)

    @property
    def stream(self):
        return self._ext

    def flush(self):
        # README "self.<attr>" + "local functions that return one": spec 2.1 X01
        self.stream.synchronize()  # XST101
