# Helpers given both sides of wait_stream, or an event, graph or work handle (issue 9).
import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream

GLOBAL_EXT = ExternalStream(1234)


def join_streams(a, b):
    a.wait_stream(b)


def join_then_wait(a, b, ev):
    a.wait_stream(b)
    a.wait_event(ev)


def join_through(x, y):
    join_streams(x, y)


def waits_for(b):
    GLOBAL_EXT.wait_stream(b)  # XST104


def wait_stream_sides(h):
    ext = ExternalStream(h)
    join_streams(ext, torch.npu.Stream())  # XST104
    join_streams(torch.npu.Stream(), ext)  # XST103
    join_streams(ext, ext)  # XST103
    join_streams(torch.npu.Stream(), torch.npu.Stream())
    join_streams(torch.cuda.Stream(), torch.cuda.current_stream())
    join_through(ext, torch.npu.Stream())  # XST104
    join_through(torch.npu.Stream(), ext)  # XST103
    join_through(ext, ext)  # XST103
    join_through(torch.npu.Stream(), torch.npu.Stream())
    waits_for(ext)  # XST103
    waits_for(torch.npu.Stream())
    join_then_wait(ext, ext, torch.npu.Event())  # XST103 XST104
    join_then_wait(torch.npu.Stream(), torch.npu.Stream(), torch.npu.Event())


def begin_capture(g):
    g.capture_begin()


def end_capture(g):
    g.capture_end()


def finish(work):
    work.wait()


def finish_through(w):
    finish(w)


def settle(handle):
    handle.synchronize()


def mark(ev):
    ev.record()


def mark_on(ev, s):
    ev.record(s)


def block(ev):
    ev.wait()


def capture_in(graph, t):
    with graph:
        t.add_(1)


def handles_under_an_external_stream(h, t):
    ext = ExternalStream(h)
    g = torch.npu.NPUGraph()
    ev = torch.npu.Event()
    work = dist.all_reduce(t, async_op=True)
    begin_capture(g)
    finish(work)
    mark(ev)
    settle(work)
    with torch.npu.stream(ext):
        begin_capture(g)  # XST106
        end_capture(g)  # XST106
        finish(work)  # XST111
        finish_through(work)  # XST111
        settle(work)  # XST111
        mark(ev)  # XST103
        block(ev)  # XST104
        mark_on(ev, torch.npu.Stream())
        settle(torch.npu.Stream())
        finish(torch.npu.Stream())
        mark(torch.npu.Stream())
        begin_capture(torch.cuda.CUDAGraph())
        capture_in(torch.accelerator.Graph(), t)  # XST106
        capture_in(torch.npu.Stream(), t)
        ext.query()  # XST102
    mark_on(ev, ext)  # XST103
    settle(ext)  # XST101
    with torch.npu.stream(torch.npu.Stream()):
        begin_capture(g)
        finish(work)
        mark(ev)
        block(ev)
        capture_in(torch.accelerator.Graph(), t)


def cuda_handles_stay_silent():
    with torch.cuda.stream(torch.cuda.Stream()):
        mark(torch.cuda.Event())
        begin_capture(torch.cuda.CUDAGraph())
