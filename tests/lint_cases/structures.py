# Data structures: containers, records, attributes, callables kept for later, dead code.
import contextlib
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import torch
from torch_npu.npu import ExternalStream

if TYPE_CHECKING:
    ExternalStream(0).synchronize()  # type-checker-only code never runs

if False:
    ExternalStream(0).query()

if TYPE_CHECKING:
    RUNTIME_STREAM = torch.npu.Stream()  # never runs: not a value any function sees
else:
    RUNTIME_STREAM = ExternalStream(0x1)


def only_the_runtime_branch():
    RUNTIME_STREAM.synchronize()  # XST101


def containers(h):
    ext = ExternalStream(h)
    managed = torch.npu.Stream()
    pair = [managed, ext]
    pair[1].synchronize()  # XST101
    pair[0].synchronize()
    pair[-1].query()  # XST102
    table = {"ext": ext, "managed": managed}
    table["ext"].synchronize()  # XST101
    table["managed"].synchronize()  # a literal key holds the managed stream only
    table[pick()].synchronize()  # XST101(may)
    {**table}["managed"].synchronize()  # XST101(may)
    only_managed = {"a": managed}
    only_managed["a"].synchronize()
    for s in table.values():
        s.query()  # XST102(may)
    for name, s in table.items():
        s.query()  # XST102(may)
    {ext}.pop().synchronize()  # XST101
    first, *rest = [managed, ext, ext]
    first.synchronize()
    rest[0].query()  # XST102
    *init, last = (managed, ext)
    last.synchronize()  # XST101
    init[0].synchronize()
    spread = [*pair]
    spread[0].query()  # XST102(may)


def comprehensions(handles):
    streams = [ExternalStream(h) for h in handles]
    streams[0].synchronize()  # XST101
    by_name = {str(h): ExternalStream(h) for h in handles}
    by_name["0"].query()  # XST102
    managed = [torch.npu.Stream() for _ in handles]
    managed[0].synchronize()
    for s in (x for x in streams):
        s.query()  # XST102


def iteration(handles):
    exts = [ExternalStream(h) for h in handles]
    for i, s in enumerate(exts):
        s.synchronize()  # XST101
    for a, b in zip(exts, [torch.npu.Stream()]):
        a.query()  # XST102
        b.query()
    list(exts)[0].synchronize()  # XST101
    next(iter(exts)).query()  # XST102


@dataclass
class Channel:
    stream: object
    name: str = ""
    tags: list = field(default_factory=list)


def make_list(h):
    return [ExternalStream(h)]


@dataclass
class Defaults:
    streams: list = field(default_factory=lambda: [ExternalStream(0x20)])
    one: object = field(default_factory=lambda: ExternalStream(0x21))
    made: list = field(default_factory=lambda: make_list(0x22))
    plain: object = ExternalStream(0x23)
    managed: object = field(default_factory=torch.npu.Stream)
    empty: list = field(default_factory=list)


@dataclass
class MoreDefaults(Defaults):
    extra: object = None


def record_defaults(h):
    d = Defaults()
    d.streams[0].query()  # XST102
    d.one.query()  # XST102
    for s in d.made:
        s.synchronize()  # XST101
    d.plain.query()  # XST102
    d.managed.query()
    d.empty[0].query()
    Defaults(one=torch.npu.Stream()).one.query()  # given: the default is not used
    Defaults([torch.npu.Stream()]).streams[0].query()
    MoreDefaults().one.synchronize()  # XST101
    MoreDefaults(extra=torch.npu.Stream()).extra.query()


class Pair(NamedTuple):
    compute: object
    copy: object


def records(h):
    ch = Channel(ExternalStream(h), "x")
    ch.stream.synchronize()  # XST101
    Channel(stream=ExternalStream(h)).stream.query()  # XST102
    Channel(torch.npu.Stream()).stream.synchronize()
    p = Pair(torch.npu.Stream(), ExternalStream(h))
    p.copy.synchronize()  # XST101
    p.compute.synchronize()
    p[1].query()  # XST102
    compute, copy = p
    copy.synchronize()  # XST101
    compute.query()


class Registry:
    default = None

    def __init__(self):
        self.stream = None

    def install(self, h):
        self.stream = ExternalStream(h)

    def flush(self):
        self.stream.synchronize()  # XST101


def callables_kept_for_later(h):
    reg = Registry()
    flush = reg.flush
    flush()
    bound = functools.partial(reg.flush)
    bound()
    sync = functools.partial(sync_one, ExternalStream(h))
    sync()  # XST101
    safe = functools.partial(sync_one, torch.npu.Stream())
    safe()
    actions = {"sync": sync_one}
    actions["sync"](ExternalStream(h))  # XST101
    getattr(ExternalStream(h), "synchronize")
    getattr(Channel(ExternalStream(h)), "stream").query()  # XST102
    getattr(Channel(torch.npu.Stream()), "stream").query()
    list(map(sync_one, [ExternalStream(h)]))  # XST101
    list(map(sync_one, [torch.npu.Stream()]))
    f = lambda s: s.synchronize()
    f(ExternalStream(h))  # XST101
    f(torch.npu.Stream())


def sync_one(s):
    s.synchronize()


def exit_stack(h):
    ext = ExternalStream(h)
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.npu.stream(ext))
        torch.npu.current_stream().synchronize()  # XST101
    torch.npu.current_stream().synchronize()


def match_patterns(h, value):
    match Channel(ExternalStream(h)):
        case Channel(stream=s):
            s.synchronize()  # XST101
    match Pair(torch.npu.Stream(), ExternalStream(h)):
        case Pair(a, b):
            a.synchronize()
            b.query()  # XST102
    match [torch.npu.Stream(), ExternalStream(h)]:
        case [x, y]:
            x.query()
            y.query()  # XST102


_EXT_MARK = 1 << 30


def stream_id_predicate(s, h):
    if s.stream_id & _EXT_MARK:
        return
    s.synchronize()
    ext = ExternalStream(h) if h else torch.npu.Stream()
    if (int(ext.stream_id) & (1 << 30)) != 0:
        ext.synchronize()  # XST101
    else:
        ext.query()
    if not torch.npu.current_stream().stream_id & 0x40000000:
        torch.npu.current_stream().synchronize()


_PRIVATEUSE1 = 20


def is_external_npu_stream(s) -> bool:
    """Contract section 6's predicate, verbatim: its calls narrow like the test itself."""
    return getattr(s, "device_type", None) == _PRIVATEUSE1 and (int(s.stream_id) & _EXT_MARK) != 0


def is_managed(s):
    return not is_external_npu_stream(s)


def always_true(s):
    return True


def predicates(h):
    ext = ExternalStream(h)
    if is_external_npu_stream(ext):
        torch.npu.synchronize()
    else:
        ext.synchronize()
    if not is_external_npu_stream(s=ext):
        ext.query()
    if is_external_npu_stream(ext):
        ext.synchronize()  # XST101
    if ext.device_type == _PRIVATEUSE1 and int(ext.stream_id) & _EXT_MARK:
        pass
    else:
        ext.query()
    if not (ext.device_type == 20 and ext.stream_id & _EXT_MARK):
        ext.query()
    if ext.device_type != 20 or not ext.stream_id & _EXT_MARK:
        ext.query()
    if is_managed(ext) or ext.stream_id & _EXT_MARK == 0:
        ext.query()
    if always_true(ext):
        ext.query()  # XST102(may)
    if ext.device_type == 1:  # CUDA's device type says nothing about bit 30
        pass
    else:
        ext.query()  # XST102(may)
    if ext.device_type == _PRIVATEUSE1 or ext.stream_id & _EXT_MARK:
        ext.query()  # XST102(may)
    else:
        ext.query()


def current_bit_check(h):
    with torch.npu.stream(ExternalStream(h)):
        if (torch.npu.current_stream().stream_id & _EXT_MARK) == 0:
            torch.npu.super_kernel_scope_begin()
        torch.npu.super_kernel_scope_begin()  # XST108(may)


class Holder:
    stream = torch.npu.Stream()  # the class default: managed

    def sync(self):
        self.stream.synchronize()


def configure_one(h):
    other = Holder()
    other.stream = ExternalStream(h)  # that instance only, not every Holder
    other.sync()  # XST101
    return other


def instances_apart(h):
    Holder().sync()
    configured = configure_one(h)
    configured.sync()  # XST101
    configured.stream.query()  # XST102
    fresh = Holder()
    fresh.stream = torch.npu.Stream()
    fresh.sync()


class CheckedHolder:
    def __init__(self, s):
        self.stream = s

    def flush(self):
        if isinstance(self.stream, ExternalStream):
            return
        self.stream.synchronize()

    def flush_unless_marked(self):
        if not self.stream.stream_id & _EXT_MARK:
            self.stream.synchronize()

    def flush_unchecked(self):
        self.stream.synchronize()


def narrowing_attributes(h):
    held = CheckedHolder(ExternalStream(h))
    held.flush()
    held.flush_unless_marked()
    held.flush_unchecked()  # XST101
    if isinstance(held.stream, ExternalStream):
        return
    held.stream.synchronize()


FALLBACK = ExternalStream(0x10)
FALLBACK = torch.npu.Stream()  # what functions and importers see: managed
CONFIGURED = torch.npu.Stream()


def reassigned_globals():
    FALLBACK.synchronize()
    CONFIGURED.synchronize()  # XST101(may)


def configure(h):
    global CONFIGURED
    CONFIGURED = ExternalStream(h)
