# Issue 16, section 5: the spec 6 predicate as a shift, default_capture_stream assigned in a
# function (an effect of calling it), and waits on a generic torch.Event never recorded.
import torch
from torch_npu.npu import ExternalStream


# --- (a) ``(int(s.stream_id) >> 30) & 1`` narrows like ``s.stream_id & (1 << 30)`` --------
def sync_unless_external(s):
    if (int(s.stream_id) >> 30) & 1:
        return
    s.synchronize()


def sync_if_not_bool(s):
    if not bool((s.stream_id >> 30) & 1):
        s.synchronize()


def sync_unless_equal_one(s):
    if (int(s.stream_id) >> 30) & 1 == 1:
        return
    s.synchronize()


def sync_when_not_equal_one(s):
    if ((s.stream_id >> 30) & 1) != 1:
        s.synchronize()


def sync_unless_not_zero(s):
    if 1 & (s.stream_id >> 30) != 0:
        return
    s.synchronize()


def sync_only_external(s):
    if (s.stream_id >> 30) & 1:
        s.synchronize()


def wrong_bit(s):
    if (int(s.stream_id) >> 29) & 1:
        return
    s.synchronize()


def use_predicates(ptr):
    ext = ExternalStream(ptr)
    sync_unless_external(ext)
    sync_if_not_bool(ext)
    sync_unless_equal_one(ext)
    sync_when_not_equal_one(ext)
    sync_unless_not_zero(ext)
    wrong_bit(ext)  # XST101: 5
    sync_only_external(ext)  # XST101: 5
    if (ext.stream_id >> 30) & 1 == 0:
        ext.synchronize()
    if (ext.stream_id >> 30) & 1 == 1:
        ext.query()  # XST102: 9


# --- (b) default_capture_stream set in a function: an effect of calling it ---------------
def use_external_for_capture(ptr):
    torch.npu.graph.default_capture_stream = ExternalStream(ptr)


def use_external_for_capture_sometimes(ptr, c):
    if c:
        torch.npu.graph.default_capture_stream = ExternalStream(ptr)


def unrelated_capture(g):
    with torch.npu.graph(g):
        pass


def set_then_capture(ptr, g):
    torch.npu.graph.default_capture_stream = ExternalStream(ptr)
    with torch.npu.graph(g):  # XST106: 10
        pass


def call_then_capture(ptr, g):
    with torch.npu.graph(g):
        pass
    use_external_for_capture(ptr)
    with torch.npu.graph(g):  # XST106: 10
        pass


def call_sometimes_then_capture(ptr, g, c):
    use_external_for_capture_sometimes(ptr, c)
    with torch.npu.graph(g):  # XST106(may): 10
        pass


def reset_after_call(ptr, g):
    use_external_for_capture(ptr)
    torch.npu.graph.default_capture_stream = torch.npu.Stream()
    with torch.npu.graph(g):
        pass


# --- (c) torch.Event.wait(ext) returns early on an event never recorded (row X07) --------
def wait_on_fresh_events(ptr):
    ext = ExternalStream(ptr)
    torch.Event(device="npu").wait(ext)
    fresh = torch.Event(device="npu")
    fresh.wait(ext)
    fresh.wait(stream=ext)
    with torch.npu.stream(ext):
        fresh.wait()


def wait_on_recorded_events(ptr, helper):
    ext = ExternalStream(ptr)
    recorded = torch.Event(device="npu")
    recorded.record()
    recorded.wait(ext)  # XST104: 5
    given = torch.Event(device="npu")
    torch.npu.current_stream().record_event(given)
    given.wait(ext)  # XST104: 5
    handed = torch.Event(device="npu")
    helper([handed])
    handed.wait(ext)  # XST104: 5
    npu_event = torch.npu.Event()
    npu_event.wait(ext)  # XST104: 5


def record_later_in_a_loop(ptr, steps):
    ext = ExternalStream(ptr)
    done = torch.Event(device="npu")
    for _ in steps:
        done.wait(ext)  # XST104: 9
        done.record()
