# Higher-order code (issue 27, point 2): function values with their closures, decorators as
# the calls they are, and calls of a function-valued parameter made where a function is passed.
import asyncio
import functools
import threading
from concurrent.futures import ThreadPoolExecutor

import torch
from torch_npu.npu import ExternalStream


def sync(s):
    s.synchronize()


def body():
    torch.npu.current_stream().synchronize()


# A callback parameter called with an argument, and under a stream the helper makes current.
def apply(fn, s):
    return fn(s)


def under(s, fn):
    with torch.npu.stream(s):
        fn()


apply(sync, ExternalStream(1))  # XST101
apply(sync, torch.npu.Stream())
apply(lambda s: s.query(), ExternalStream(1))  # XST102
apply(print, ExternalStream(1))
under(ExternalStream(2), body)  # XST101
under(torch.npu.Stream(), body)
under(ExternalStream(2), print)


# Passed on through another higher-order helper: the recorded call is the caller's own.
def apply_twice(fn, s):
    apply(fn, s)
    return apply(fn, s)


apply_twice(sync, ExternalStream(3))  # XST101
apply_twice(sync, torch.npu.Stream())


# A decorator factory whose functools.wraps wrapper runs the body under a stream.
def runs_on(stream):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with torch.npu.stream(stream):
                return fn(*args, **kwargs)

        return wrapper

    return deco


@runs_on(ExternalStream(4))
def step_external():
    torch.npu.current_stream().synchronize()


@runs_on(torch.npu.Stream())
def step_managed():
    torch.npu.current_stream().synchronize()


step_external()  # XST101
step_managed()


class Runner:
    @runs_on(ExternalStream(5))
    def run(self, x):
        torch.npu.current_stream().query()

    @runs_on(torch.npu.Stream())
    def run_managed(self, x):
        torch.npu.current_stream().query()


Runner().run(1)  # XST102
Runner().run_managed(1)


# A plain decorator forwarding *args, **kwargs: the arguments reach the decorated body.
def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@traced
def traced_sync(s, other=None):
    s.synchronize()


traced_sync(ExternalStream(6))  # XST101
traced_sync(s=ExternalStream(6))  # XST101
traced_sync(torch.npu.Stream(), other=ExternalStream(6))
traced_sync(torch.npu.Stream())


# What a wrapper or a callback helper returns is what the function it calls returns.
@traced
def traced_make(p):
    return ExternalStream(p)


@traced
def traced_make_managed(p):
    return torch.npu.Stream()


def sync_what(fn, x):
    fn(x).synchronize()


traced_make(1).synchronize()  # XST101
traced_make_managed(1).synchronize()
apply(traced_make, 2).query()  # XST102
apply(traced_make_managed, 2).query()
sync_what(ExternalStream, 3)  # XST101
sync_what(torch.npu.Stream, 3)


# Library functions and builtins that call the function they are given.
def key(s):
    s.query()
    return 0


def fold(total, s):
    s.synchronize()
    return total


sorted([ExternalStream(7)], key=key)  # XST102
sorted([torch.npu.Stream()], key=key)
max([ExternalStream(7)], key=key)  # XST102
min([torch.npu.Stream()], key=key)
list(filter(key, [ExternalStream(7)]))  # XST102
functools.reduce(fold, [ExternalStream(8)], 0)  # XST101
functools.reduce(fold, [torch.npu.Stream()], 0)
list(map(sync, [ExternalStream(8)]))  # XST101


# In another thread: the argument is the caller's, the current stream is not.
async def in_threads():
    await asyncio.to_thread(sync, ExternalStream(9))  # XST101
    await asyncio.to_thread(sync, torch.npu.Stream())
    with torch.npu.stream(ExternalStream(9)):
        await asyncio.to_thread(body)
    threading.Thread(target=sync, args=(ExternalStream(9),)).start()  # XST101
    threading.Thread(target=sync, args=(torch.npu.Stream(),)).start()
    with ThreadPoolExecutor() as pool:
        pool.submit(sync, ExternalStream(9))  # XST101
        pool.submit(sync, torch.npu.Stream())
    await asyncio.get_running_loop().run_in_executor(None, sync, ExternalStream(9))  # XST101


# functools.partial of the constructor itself.
make = functools.partial(ExternalStream, device=0)
made = make(0x1234)
made.synchronize()  # XST101
make(0)  # XST001
managed = functools.partial(torch.npu.Stream, device=0)()
managed.synchronize()
