# Refused methods reached dynamically: a bound method carries its receiver, so calling it
# later (getattr, a local, a dict, functools.partial, map, a helper's return) is the refused
# call, reported where it is called. Unbound methods of the stream classes take the stream
# as their first argument.
import functools

import torch
import torch_npu
from torch_npu.npu import ExternalEvent, ExternalStream


def in_one_function(ptr):
    ext = torch_npu.npu.ExternalStream(ptr)
    side = torch.npu.Stream()
    getattr(ext, "synchronize")()  # XST101: 5
    poll = ext.query
    poll()  # XST102: 5
    ops = {"poll": ext.query, "sync": ext.synchronize}
    ops["poll"]()  # XST102: 5
    ops["sync"]()  # XST101: 5
    functools.partial(torch.npu.Stream.synchronize, ext)()  # XST101: 5
    functools.partial(side.wait_stream, ext)()  # XST103: 5
    list(map(torch.npu.Stream.synchronize, [side, ext]))  # XST101: 10
    getattr(ext, "wait_event")(torch.npu.Event())  # XST104: 5
    rec = getattr(ext, "record_event")
    rec()  # XST103: 5
    waiter = functools.partial(ext.wait_stream, side)
    waiter()  # XST104: 5
    functools.partial(torch_npu.npu.Stream.query, ext)()  # XST102: 5
    functools.partial(ExternalStream.synchronize, ext)()  # XST101: 5
    unbound = torch_npu.npu.ExternalStream.query
    unbound(ext)  # XST102: 5
    for f in [ext.query, ExternalStream(ptr).query]:
        f()  # XST102: 9
    for f in [ext.query, side.query]:
        f()  # XST102(may): 9


def on_some_paths(ptr, flag):
    s = ExternalStream(ptr) if flag else torch.npu.Stream()
    sync = s.synchronize
    sync()  # XST101(may): 5
    list(map(torch.npu.Stream.query, [s]))  # XST102(may): 10


def not_refused(ptr):
    ext = ExternalStream(ptr)
    side = torch.npu.Stream()
    stream_id = getattr(ext, "stream_id")
    print(stream_id, getattr(ext, "device"))
    functools.partial(print, ext)()
    functools.partial(ExternalEvent().reset, ext)()
    functools.partial(torch.npu.set_stream_limit, ext, 1, 1)()
    functools.partial(ext.__eq__, side)()
    list(map(torch.npu.Stream.synchronize, [side, torch.npu.Stream()]))
    list(map(hash, [ext]))
    later = ext.query  # read but never called
    print(later)


def managed_and_cuda(ptr):
    managed = torch.npu.Stream()
    getattr(managed, "synchronize")()
    poll = managed.query
    poll()
    ops = {"poll": managed.query}
    ops["poll"]()
    functools.partial(torch.npu.Stream.synchronize, managed)()
    functools.partial(managed.wait_stream, torch.npu.Stream())()
    list(map(torch.npu.Stream.synchronize, [managed, torch.npu.default_stream()]))
    cuda = torch.cuda.ExternalStream(ptr)
    getattr(cuda, "synchronize")()
    cuda_poll = cuda.query
    cuda_poll()
    functools.partial(torch.cuda.Stream.synchronize, cuda)()
    functools.partial(torch.cuda.current_stream().wait_stream, cuda)()
    list(map(torch.cuda.Stream.synchronize, [cuda]))


EXT = ExternalStream(0x10)


def poller():
    return EXT.query


def poller_of(stream):
    return stream.query


def syncer_of(stream):
    return functools.partial(torch.npu.Stream.synchronize, stream)


def through_helpers(ptr):
    poller()()  # XST102: 5
    check = poller()
    check()  # XST102: 5
    poller_of(ExternalStream(ptr))()  # XST102: 5
    poller_of(torch.npu.Stream())()
    syncer_of(ExternalStream(ptr))()  # XST101: 5
    syncer_of(torch.npu.Stream())()



def polls_what_it_is_given(s):
    m = s.query
    m()


def syncs_each(streams):
    list(map(torch.npu.Stream.synchronize, streams))


def waits_later(s):
    return functools.partial(s.wait_stream, torch.npu.Stream())


def helpers_that_bind(ptr):
    polls_what_it_is_given(ExternalStream(ptr))  # XST102: 5
    polls_what_it_is_given(torch.npu.Stream())
    syncs_each([ExternalStream(ptr)])  # XST101: 5
    syncs_each([torch.npu.Stream()])
    waits_later(ExternalStream(ptr))()  # XST104: 5
    waits_later(torch.npu.Stream())()
