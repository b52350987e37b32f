# Calls within a module: helpers are summarised once, findings reported at the call site.
import functools
from contextlib import contextmanager

import torch
from torch_npu.npu import ExternalStream


def sync(s):
    s.synchronize()


def query_all(streams):
    for s in streams:
        s.query()


def only_managed():
    sync(torch.npu.Stream())  # a helper only ever given managed streams says nothing
    query_all([torch.npu.Stream(), torch.npu.current_stream()])


def passes_external(h):
    ext = ExternalStream(h)
    sync(ext)  # XST101
    sync(s=ext)  # XST101
    query_all([torch.npu.Stream(), ext])  # XST102(may)
    sync(torch.npu.Stream())


def forwards(x):
    sync(x)


def through_two_helpers(h):
    forwards(ExternalStream(h))  # XST101
    forwards(torch.npu.Stream())


def recursive(s, n):
    if n:
        recursive(s, n - 1)
    s.query()


def ping(s, n):
    if n:
        pong(s, n - 1)


def pong(s, n):
    ping(s, n)
    s.synchronize()


def recursion_terminates(h):
    recursive(ExternalStream(h), 3)  # XST102
    ping(ExternalStream(h), 3)  # XST101
    ping(torch.npu.Stream(), 3)


def identity(s):
    return s


def returned_argument(h):
    identity(ExternalStream(h)).synchronize()  # XST101
    identity(torch.npu.Stream()).synchronize()


def open_scope():
    torch.npu.super_kernel_scope_begin()


def current_stream_of_caller(h):
    open_scope()
    with torch.npu.stream(ExternalStream(h)):
        open_scope()  # XST108
    with torch.npu.stream(torch.npu.Stream()):
        open_scope()


def make_current(s):
    torch.npu.set_stream(s)


def setter_helper(h):
    make_current(torch.npu.Stream())
    torch.npu.super_kernel_scope_begin()
    make_current(ExternalStream(h))
    torch.npu.super_kernel_scope_begin()  # XST108


@contextmanager
def on_stream(s):
    with torch.npu.stream(s):
        yield s


def context_manager_helper(h):
    with on_stream(ExternalStream(h)) as s:
        torch.npu.current_stream().synchronize()  # XST101
        s.query()  # XST102
    torch.npu.current_stream().synchronize()
    with on_stream(torch.npu.Stream()) as s:
        torch.npu.current_stream().synchronize()
        s.query()


class StreamGuard:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        torch.npu.set_stream(self.stream)
        return self

    def __exit__(self, *exc):
        torch.npu.set_stream(torch.npu.default_stream())

    def flush(self):
        self.stream.synchronize()


def enter_method(h):
    with StreamGuard(ExternalStream(h)) as guard:
        torch.npu.super_kernel_scope_begin()  # XST108
        guard.flush()  # XST101
    torch.npu.super_kernel_scope_begin()
    with StreamGuard(torch.npu.Stream()) as guard:
        torch.npu.super_kernel_scope_begin()
        guard.flush()


class Base:
    def __init__(self, stream):
        self.stream = stream

    def wait(self):
        self.stream.synchronize()


class Derived(Base):
    def __init__(self, stream, n):
        super().__init__(stream)
        self.n = n


def inherited(h):
    Derived(ExternalStream(h), 1).wait()  # XST101
    Derived(torch.npu.Stream(), 1).wait()
    d = Derived(ExternalStream(h), 2)
    d.wait()  # XST101


class Later:
    def __init__(self):
        self.stream = None

    def attach(self, s):
        self.stream = s

    def flush(self):
        if self.stream is not None:
            self.stream.synchronize()


def attribute_set_later(h):
    later = Later()
    later.attach(ExternalStream(h))
    later.flush()  # XST101
    other = Later()
    other.attach(torch.npu.Stream())
    other.flush()


def checks_itself(s):
    if isinstance(s, ExternalStream):
        s.synchronize()  # XST101


def with_default(s=None):
    if s is None:
        s = torch.npu.Stream()
    s.query()


def default_argument(h):
    with_default()
    with_default(ExternalStream(h))  # XST102 (the caller's stream is not None: `s` is it)


def sync_each(*streams):
    for s in streams:
        s.synchronize()


def query_named(**streams):
    streams["main"].query()


EXT_DEFAULT = ExternalStream(0x1234)


def sync_default(s=EXT_DEFAULT):
    s.synchronize()


def managed_default(s=torch.npu.Stream()):
    s.synchronize()


def star_parameters(h, pair):
    ext = ExternalStream(h)
    sync_each(torch.npu.Stream(), ext)  # XST101(may)
    sync_each(ext)  # XST101
    sync_each()
    sync_each(torch.npu.Stream(), torch.npu.current_stream())
    sync_each(*pair)  # what a spread holds is unknown: nothing is assumed
    query_named(main=ext)  # XST102
    query_named(main=torch.npu.Stream())
    sync_default()  # XST101
    sync_default(torch.npu.Stream())  # the default is not used
    managed_default()
    managed_default(ext)  # XST101


def returns_what_a_later_helper_returns(h):
    return streams_of(h)  # learnt on the first pass as unknown, then as a list


def streams_of(h):
    return [ExternalStream(h), ExternalStream(h + 1)]


def order_of_definitions(h):
    for s in returns_what_a_later_helper_returns(h):
        s.synchronize()  # XST101
    returns_what_a_later_helper_returns(h)[1].query()  # XST102


def pick(a, b, flag):
    s = a if flag else b
    s.synchronize()


def pick_element(a, b, flag):
    chosen = a if flag else b
    for s in chosen:
        s.query()


def either_parameter(h, flag):
    ext = ExternalStream(h)
    pick(ext, torch.npu.Stream(), flag)  # XST101(may)
    pick(torch.npu.Stream(), ext, flag)  # XST101(may)
    pick(torch.npu.Stream(), torch.npu.Stream(), flag)
    pick_element([torch.npu.Stream()], [ext], flag)  # XST102(may)
    pick_element([torch.npu.Stream()], [torch.npu.Stream()], flag)


def _sync_one(s):
    s.synchronize()


def make_syncer(s):
    return functools.partial(_sync_one, s)


class Flusher:
    def __init__(self, s):
        self.s = s

    def flush(self):
        self.s.synchronize()


def bound_flush(s):
    return Flusher(s).flush


def returned_callables(h):
    make_syncer(ExternalStream(h))()  # XST101
    make_syncer(torch.npu.Stream())()
    bound_flush(ExternalStream(h))()  # XST101
    bound_flush(torch.npu.Stream())()
    ops = {"sync": lambda s: s.synchronize()}
    ops["sync"](ExternalStream(h))  # XST101
    ops["sync"](torch.npu.Stream())


def one_external(h):
    yield ExternalStream(h)


def managed_then_external(h):
    yield torch.npu.Stream()
    yield ExternalStream(h)


def only_managed_streams():
    yield torch.npu.Stream()
    yield torch.npu.current_stream()


def generators(h):
    for s in one_external(h):
        s.query()  # XST102
    for s in managed_then_external(h):
        s.query()  # XST102(may)
    next(one_external(h)).query()  # XST102
    list(one_external(h))[0].query()  # XST102
    for s in only_managed_streams():
        s.query()


@contextmanager
def on_own_stream(h):
    own = ExternalStream(h)
    with torch.npu.stream(own):
        yield


def made_current_by_a_helper(h):
    with on_own_stream(h):
        torch.npu.current_stream().synchronize()  # XST101


def sync_in_a_closure(s):
    def apply():
        s.synchronize()

    apply()


def query_in_a_lambda(s):
    run = lambda: s.query()  # noqa: E731
    run()


def closures_over_parameters(h):
    sync_in_a_closure(ExternalStream(h))  # XST101(may)
    sync_in_a_closure(torch.npu.Stream())
    query_in_a_lambda(ExternalStream(h))  # XST102(may)
    query_in_a_lambda(torch.npu.Stream())
