# Value flow: branches, loops, reassignment, narrowing, tuples, walrus, closures, classes.
import asyncio
import functools
from typing import Optional, Union

import torch
import torch_npu
from torch_npu.npu import ExternalStream


def branches(cond, h):
    if cond:
        s = ExternalStream(h)
    else:
        s = torch.npu.Stream()
    s.synchronize()  # XST101(may)


def none_or_external(cond, h):
    s = None
    if cond:
        s = ExternalStream(h)
    if s is not None:
        s.synchronize()  # XST101


def reassigned(h):
    s = ExternalStream(h)
    s = torch.npu.Stream()
    s.synchronize()


def loop_carried(h, items):
    s = torch.npu.Stream()
    for item in items:
        s.synchronize()  # XST101(may)
        s = ExternalStream(item)


def while_loop(h):
    while True:
        ext = ExternalStream(h)
        if ext:
            break
    ext.query()  # XST102


def loop_over_streams(h):
    for s in [ExternalStream(h), ExternalStream(h + 1)]:
        s.synchronize()  # XST101
    for s in (torch.npu.Stream(), ExternalStream(h)):
        s.query()  # XST102(may)


def narrowing(s):
    if isinstance(s, ExternalStream):
        s.synchronize()  # XST101
    else:
        s.synchronize()
    if not isinstance(s, torch_npu.npu.ExternalStream):
        return
    s.query()  # XST102


def tuples_and_walrus(h):
    a, b = ExternalStream(h), torch.npu.Stream()
    a.synchronize()  # XST101
    b.synchronize()
    (c := ExternalStream(h)).query()  # XST102
    c.synchronize()  # XST101


def annotated(s: ExternalStream, t: Optional[ExternalStream], u: "ExternalStream",
              v: Union[ExternalStream, None], w: torch.npu.Stream, x: "torch_npu.npu.ExternalStream"):
    s.synchronize()  # XST101
    t.synchronize()  # XST101
    u.synchronize()  # XST101
    v.synchronize()  # XST101
    w.synchronize()
    x.query()  # XST102
    y: ExternalStream = get()
    y.query()  # XST102


def annotated_new_union(s: ExternalStream | None):
    s.synchronize()  # XST101


def make_stream(h):
    return ExternalStream(h)


def make_annotated() -> ExternalStream:
    return get_stream()


def uses_factories(h):
    make_stream(h).synchronize()  # XST101
    s = make_annotated()
    s.query()  # XST102


module_stream = ExternalStream(HANDLE)


def uses_global():
    module_stream.synchronize()  # XST101


def closure(h):
    ext = ExternalStream(h)

    def inner():
        ext.synchronize()  # XST101

    return inner


def comprehension(handles):
    streams = [ExternalStream(h) for h in handles]
    [s.synchronize() for s in [ExternalStream(1), ExternalStream(2)]]  # XST101
    return streams


class Worker:
    def __init__(self, h):
        self.ext = ExternalStream(h)
        self.other = torch.npu.Stream()
        self.maybe = None

    def setup(self, h):
        self.maybe = ExternalStream(h)

    def run(self):
        self.ext.synchronize()  # XST101
        self.other.synchronize()
        self.maybe.query()  # XST102
        with torch.npu.stream(self.ext):
            torch.npu.current_stream().synchronize()  # XST101

    def stream(self) -> ExternalStream:
        return self.ext

    def run_again(self):
        self.stream().query()  # XST102


@functools.lru_cache
def decorated(h):
    ExternalStream(h).synchronize()  # XST101


async def coroutine(h):
    ext = ExternalStream(h)
    async with lock:
        await asyncio.sleep(0)
        ext.synchronize()  # XST101
    with torch.npu.stream(ext):
        await other()
        torch.npu.current_stream().query()  # XST102


def nested_with(h):
    ext = ExternalStream(h)
    s = torch.npu.Stream()
    with torch.npu.stream(s):
        with torch.npu.stream(ext):
            torch.npu.current_stream().synchronize()  # XST101
        torch.npu.current_stream().synchronize()
    with ext:
        torch.npu.current_stream().query()  # XST102
    torch.npu.current_stream().query()


def set_stream_until_set_back(h):
    ext = ExternalStream(h)
    torch.npu.set_stream(ext)
    torch.npu.current_stream().synchronize()  # XST101
    torch.npu.set_stream(torch.npu.default_stream())
    torch.npu.current_stream().synchronize()


def current_on_some_paths(h, cond):
    ext = ExternalStream(h)
    if cond:
        torch.npu.set_stream(ext)
    torch.npu.current_stream().synchronize()  # XST101(may)


def try_blocks(h):
    try:
        ext = ExternalStream(h)
    except RuntimeError:
        raise
    finally:
        pass
    ext.synchronize()  # XST101


def stream_context_object(h):
    ctx = torch.npu.stream(ExternalStream(h))
    with ctx:
        torch.npu.current_stream().synchronize()  # XST101
    with torch.npu.StreamContext(ExternalStream(h)):
        torch.npu.current_stream().query()  # XST102


def lambda_body(h):
    ext = ExternalStream(h)
    callback = lambda: ext.synchronize()  # XST101
    return callback


def deleted(h):
    ext = ExternalStream(h)
    del ext
    ext = torch.npu.Stream()
    ext.synchronize()


def implicit_current_on_some_paths(h, cond):
    ext = ExternalStream(h)
    if cond:
        torch.npu.set_stream(ext)
    torch.npu.super_kernel_scope_begin()  # XST108(may)


def parenthesized_operators(h, a, b):
    ext = (ExternalStream(h) or a) if (a and b) else (b or ExternalStream(h))
    x = (a + b) * (a - b)
    ext.synchronize()  # XST101(may)
