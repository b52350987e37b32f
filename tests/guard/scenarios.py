"""The scenario table: every section-2 row Python reaches and every section-5 "works" row.

Shared by the simulation tests and the ``npu``-marked hardware tests, which run the same table
against whatever ``torch_npu`` an :class:`Env` wraps. Each scenario says what the guard must do
(``code``: the rule it raises, or None when the call must go through) and what torch_npu does
without it (``native``: a fragment of its error text, or None when it raises nothing).
"""

from __future__ import annotations

import contextlib
import ctypes
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from extstream_lint.contract import (
    NATIVE_PRIORITY,
    NATIVE_QUERY,
    NATIVE_SYNC_LAUNCH,
    NATIVE_SYNCHRONIZE,
    native_not_supported,
)

RECORD = native_not_supported("NPUEvent::record")
BLOCK = native_not_supported("NPUEvent::block")
HCCL = native_not_supported("ProcessGroupHCCL::collective", current=True)
LCCL = native_not_supported("ProcessGroupLCCL::collective", current=True)
NOT_INT = "argument 6 must be int"


class Env:
    """What a scenario needs: torch, torch_npu, streams, events, tensors, process groups.

    ``pointer(k)`` is a raw stream handle to wrap; ``tensor()`` an NPU tensor; ``group`` a
    HCCL process group (None where none can be made); ``lccl_group`` likewise; ``cpu_group`` a
    gloo one; ``p2p`` whether ``group`` has a peer rank 1.
    """

    def __init__(
        self,
        torch: Any,
        torch_npu: Any,
        pointer: Callable[[int], int],
        tensor: Callable[[], Any],
        group: Any = None,
        lccl_group: Any = None,
        cpu_group: Any = None,
        p2p: bool = False,
    ) -> None:
        self.torch, self.tn, self.npu = torch, torch_npu, torch_npu.npu
        self.pointer, self.tensor = pointer, tensor
        self.group, self.lccl_group, self.cpu_group = group, lccl_group, cpu_group
        #: ``group`` has a rank 1 to send to (point-to-point needs a peer).
        self.p2p = p2p
        self.dist = torch.distributed

    def ext(self, k: int = 0) -> Any:
        return self.npu.ExternalStream(self.pointer(k))

    def managed(self) -> Any:
        return self.npu.Stream()

    def event(self) -> Any:
        return self.npu.Event()

    @contextlib.contextmanager
    def current(self, stream: Any) -> Iterator[None]:
        with self.npu.stream(stream):
            yield


@dataclass(frozen=True)
class Scenario:
    id: str
    row: str
    code: str | None
    run: Callable[[Env], Any]
    native: str | None = None
    off_error: type[BaseException] = RuntimeError
    needs: str = ""
    #: The scenario itself reads ``npu_stream`` (so the "guard never reads it" count skips it).
    reads_npu_stream: bool = False

    @property
    def fails_natively(self) -> bool:
        return self.native is not None


Register = Callable[[Callable[[Env], Any]], Scenario]


def _s(id: str, row: str, code: str | None, native: str | None, needs: str = "",
       off_error: type[BaseException] = RuntimeError) -> Register:  # fmt: skip
    def register(run: Callable[[Env], Any]) -> Scenario:
        scenario = Scenario(id, row, code, run, native, off_error, needs)
        SCENARIOS.append(scenario)
        return scenario

    return register


SCENARIOS: list[Scenario] = []


# --- X01 / X02 / X16: synchronize and query ----------------------------------------------------
@_s("sync-self", "X01", "XST101", NATIVE_SYNCHRONIZE)
def _(env: Env) -> Any:
    env.ext().synchronize()


@_s("sync-current", "X01", "XST101", NATIVE_SYNCHRONIZE)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.current_stream().synchronize()


@_s("unsubscribe-report", "X16", "XST110", NATIVE_SYNCHRONIZE)
def _(env: Env) -> Any:
    env.npu._unsubscribe_report(env.ext())


@_s("query-self", "X02", "XST102", NATIVE_QUERY)
def _(env: Env) -> Any:
    env.ext().query()


@_s("query-current", "X02", "XST102", NATIVE_QUERY)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.current_stream().query()


# --- X03: record ---------------------------------------------------------------------------------
@_s("record_event-self", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.ext().record_event()


@_s("record_event-given-event", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.ext().record_event(event=env.event())


@_s("event-record-arg", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.event().record(env.ext())


@_s("event-record-kw", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.event().record(stream=env.ext())


@_s("event-record-current", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.event().record()


@_s("external-event-record-arg", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.npu.ExternalEvent().record(env.ext())


@_s("external-event-record-current", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.ExternalEvent().record()


@_s("managed-wait_stream-ext", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.managed().wait_stream(env.ext())


@_s("managed-wait_stream-ext-kw", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.managed().wait_stream(stream=env.ext())


@_s("ext-wait_stream-ext", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    ext = env.ext()
    ext.wait_stream(ext)


@_s("synclaunch-wait_stream-ext", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    env.npu.SyncLaunchStream().wait_stream(env.ext())


@_s("current-record_event", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.current_stream().record_event()


@_s("managed-wait_stream-current", "X03", "XST103", RECORD)
def _(env: Env) -> Any:
    other = env.managed()
    with env.current(env.ext()):
        other.wait_stream(env.npu.current_stream())


# --- X04: wait -----------------------------------------------------------------------------------
@_s("wait_event-self", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    env.ext().wait_event(env.event())


@_s("ext-wait_stream-managed", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    env.ext().wait_stream(env.managed())


@_s("event-wait-arg", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    env.event().wait(env.ext())


@_s("event-wait-kw", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    env.event().wait(stream=env.ext())


@_s("event-wait-current", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.event().wait()


@_s("external-event-wait-arg", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    env.npu.ExternalEvent().wait(env.ext())


@_s("external-event-wait-current", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.ExternalEvent().wait()


@_s("current-wait_stream-managed", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    other = env.managed()
    with env.current(env.ext()):
        env.npu.current_stream().wait_stream(other)


@_s("current-wait_event", "X04", "XST104", BLOCK)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.current_stream().wait_event(env.event())


# --- X05: record_stream --------------------------------------------------------------------------
@_s("record_stream-arg", "X05", "XST105", native_not_supported("record_stream"))
def _(env: Env) -> Any:
    env.tensor().record_stream(env.ext())


@_s("record_stream-kw", "X05", "XST105", native_not_supported("record_stream"))
def _(env: Env) -> Any:
    env.tensor().record_stream(s=env.ext())


@_s("record_stream-unbound", "X05", "XST105", native_not_supported("record_stream"))
def _(env: Env) -> Any:
    env.torch.Tensor.record_stream(env.tensor(), env.ext())


@_s("record_stream-current", "X05", "XST105", native_not_supported("record_stream"))
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        tensor.record_stream(env.npu.current_stream())


# --- X08-X11: graph task groups ------------------------------------------------------------------
@_s("task_group_begin", "X08", "XST107", native_not_supported("graph_task_group_begin"))
def _(env: Env) -> Any:
    env.npu.graph_task_group_begin(env.ext())


@_s("task_group_begin-kw-graphs", "X08", "XST107", native_not_supported("graph_task_group_begin"))
def _(env: Env) -> Any:
    env.npu.graphs.graph_task_group_begin(stream=env.ext())


@_s("task_group_end", "X09", "XST107", native_not_supported("graph_task_group_end"))
def _(env: Env) -> Any:
    env.npu.graph_task_group_end(env.ext())


@_s("task_update_begin", "X10", "XST107", native_not_supported("graph_task_update_begin"))
def _(env: Env) -> Any:
    env.npu.graph_task_update_begin(env.ext(), 0x1234)


@_s("task_update_end", "X11", "XST107", native_not_supported("graph_task_update_end"))
def _(env: Env) -> Any:
    env.npu.graph_task_update_end(env.ext())


# --- X12 / X13: super-kernel scopes --------------------------------------------------------------
@_s("super_kernel_begin-current", "X12", "XST108", native_not_supported("super_kernel_scope_begin"))
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.super_kernel_scope_begin()


@_s("super_kernel_begin-blank-name", "X12", None, "scope_name should be None or a non-empty")
def _(env: Env) -> Any:
    with env.current(env.ext()):  # torch_npu's own argument check comes first, guard or not
        env.npu.super_kernel_scope_begin("   ")


@_s("super_kernel_end-current", "X13", "XST108", native_not_supported("super_kernel_scope_end"))
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.super_kernel_scope_end("scope")


# --- X14 / X15: private hooks --------------------------------------------------------------------
@_s("launch_host_func", "X14", "XST109", native_not_supported("launch_callback"))
def _(env: Env) -> Any:
    env.npu._launch_host_func(env.ext(), lambda _data: None, None)


@_s("launch_host_func-kw", "X14", "XST109", native_not_supported("launch_callback"))
def _(env: Env) -> Any:
    env.npu._launch_host_func(op_stream=env.ext(), fn=lambda _data: None, user_data=None)


@_s("subscribe_report", "X15", "XST110", native_not_supported("subscribe_report"))
def _(env: Env) -> Any:
    env.npu._subscribe_report(env.ext())


# --- X17 / X18: graph capture --------------------------------------------------------------------
@_s("capture_begin-current", "X17", "XST106", native_not_supported("NPUGraph::capture_begin"))
def _(env: Env) -> Any:
    graph = env.npu.NPUGraph()
    with env.current(env.ext()):
        graph.capture_begin()


@_s("graph-ctx-stream-ext", "X17", "XST106", native_not_supported("NPUGraph::capture_begin"))
def _(env: Env) -> Any:
    with env.npu.graph(env.npu.NPUGraph(), stream=env.ext()):
        pass


def _close_capture(env: Env, graph: Any, stream: Any) -> None:
    """A refused capture_end leaves the capture open (on hardware): end it where it began."""
    with contextlib.suppress(RuntimeError), env.current(stream):
        graph.capture_end()


@_s("capture_end-current", "X18", "XST106", native_not_supported("NPUGraph::capture_end"))
def _(env: Env) -> Any:
    graph, managed = env.npu.NPUGraph(), env.managed()
    with env.current(managed):
        graph.capture_begin()
    try:
        with env.current(env.ext()):
            graph.capture_end()
    except BaseException:
        _close_capture(env, graph, managed)
        raise


@_s("graph-exit-ext-current", "X18", "XST106", native_not_supported("NPUGraph::capture_end"))
def _(env: Env) -> Any:
    before, graph = env.npu.current_stream(), env.npu.NPUGraph()
    try:
        with env.npu.graph(graph):
            env.npu.set_stream(env.ext())
    except BaseException:
        _close_capture(env, graph, env.npu.graph.default_capture_stream)
        raise
    finally:
        env.npu.set_stream(before)


@_s("graph-default-capture-stream-ext", "X17", "XST106",
    native_not_supported("NPUGraph::capture_begin"))  # fmt: skip
def _(env: Env) -> Any:
    before = env.npu.current_stream()
    saved = env.npu.graph.__dict__.get("default_capture_stream")
    env.npu.graph.default_capture_stream = env.ext()
    try:
        with env.npu.graph(env.npu.NPUGraph()):
            pass
    finally:
        env.npu.graph.default_capture_stream = saved
        env.npu.set_stream(before)


# --- X19 / X20 / X03 / X04 via torch.distributed -------------------------------------------------
@_s("all_reduce-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.dist.all_reduce(tensor, group=env.group)


@_s("all_reduce-async-c10d", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.dist.distributed_c10d.all_reduce(tensor, group=env.group, async_op=True)


@_s("broadcast-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.dist.broadcast(tensor, 0, group=env.group)


def _two_tensor_collective(env: Env, name: str) -> None:
    function = getattr(env.dist, name, None)
    if function is None:
        import pytest

        pytest.skip(f"torch.distributed.{name} does not exist in torch {env.torch.__version__}")
    tensor, out = env.tensor(), env.tensor()
    with env.current(env.ext()), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated spellings in torch 2.13
        function(out, tensor, group=env.group)


@_s("all_gather_into_tensor-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    _two_tensor_collective(env, "all_gather_into_tensor")


@_s("all_gather_single-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    _two_tensor_collective(env, "all_gather_single")


@_s("reduce_scatter_tensor-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    _two_tensor_collective(env, "reduce_scatter_tensor")


@_s("reduce_scatter_single-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    _two_tensor_collective(env, "reduce_scatter_single")


@_s("barrier-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.dist.barrier(group=env.group)


@_s("all_gather_uneven-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    tensor, out = env.tensor(), env.tensor()
    with env.current(env.ext()):
        env.tn.distributed.all_gather_into_tensor_uneven(out, tensor, group=env.group)


@_s("send-current", "X03", "XST111", RECORD, needs="p2p")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.dist.send(tensor, 1, group=env.group)


@_s("lccl-all_reduce-current", "X20", "XST111", LCCL, needs="lccl")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.dist.all_reduce(tensor, group=env.lccl_group)


@_s("work-wait-current", "X04", "XST111", BLOCK, needs="dist")
def _(env: Env) -> Any:
    work = env.dist.all_reduce(env.tensor(), group=env.group, async_op=True)
    with env.current(env.ext()):
        work.wait()


# --- added for the surface-table walk (tests/test_surface_table.py): rows without a scenario ---
@_s("work-synchronize-current", "X04", "XST111", BLOCK, needs="dist")
def _(env: Env) -> Any:
    work = env.dist.all_reduce(env.tensor(), group=env.group, async_op=True)
    assert type(work) is env.dist.Work  # C++ backends return the base class itself
    with env.current(env.ext()):
        work.synchronize()


# --- end of the surface-table additions ----------------------------------------------------------


# ProcessGroup methods, called on the group object itself (spec 2.4).
@_s("group-allreduce-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.group.allreduce([tensor])


@_s("group-broadcast-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.group.broadcast([tensor])


@_s("group-barrier-current", "X19", "XST111", HCCL, needs="dist")
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.group.barrier()


@_s("group-send-current", "X03", "XST111", RECORD, needs="p2p")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.ext()):
        env.group.send([tensor], 1, 0)


# --- constructor (XST001 / XST002; X23 / X24) ----------------------------------------------------
@_s("ctor-zero", "4.2", "XST001", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(0)


@_s("ctor-None", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    env.npu.ExternalStream(None)


@_s("ctor-bool", "4.2", "XST001", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(True)


@_s("ctor-negative", "4.2", "XST001", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(-1)


@_s("ctor-over-64-bit", "4.2", "XST001", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(2**64 + env.pointer(0))


@_s("ctor-float", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    env.npu.ExternalStream(float(env.pointer(0)))


@_s("ctor-str", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    env.npu.ExternalStream(hex(env.pointer(0)))


@_s("ctor-null-c_void_p", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    env.npu.ExternalStream(ctypes.c_void_p())


@_s("ctor-priority", "X23", "XST002", NATIVE_PRIORITY)
def _(env: Env) -> Any:
    env.npu.ExternalStream(env.pointer(0), priority=-1)


@_s("ctor-is_sync_launch", "X24", "XST002", NATIVE_SYNC_LAUNCH)
def _(env: Env) -> Any:
    env.npu.ExternalStream(env.pointer(0), is_sync_launch=1)


@_s("ctor-device_type", "4.2", "XST002", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(env.pointer(0), device_type=20)


@_s("ctor-stream_id", "4.2", "XST002", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(env.pointer(0), stream_id=5, device_type=20)


class _Index:
    """An integer that is not an ``int`` (as numpy's are): ``i`` and ``L`` parse it through
    ``__index__``; ``K`` (the pointer) refuses it."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@_s("ctor-priority-index", "X23", "XST002", NATIVE_PRIORITY)
def _(env: Env) -> Any:
    env.npu.ExternalStream(env.pointer(0), priority=_Index(-1))


@_s("ctor-stream_id-index", "4.2", "XST002", None)
def _(env: Env) -> Any:
    env.npu.ExternalStream(env.pointer(0), stream_id=_Index(5), device_type=_Index(20))


@_s("ctor-pointer-index", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    env.npu.ExternalStream(_Index(env.pointer(0)))


@_s("stream-ctor-zero", "4.2", "XST001", None)
def _(env: Env) -> Any:
    env.npu.Stream(stream_ptr=0)


@_s("stream-ctor-priority", "X23", "XST002", NATIVE_PRIORITY)
def _(env: Env) -> Any:
    env.npu.Stream(0, -1, stream_ptr=env.pointer(0))


@_s("synclaunch-ctor-pointer", "X24", "XST002", NATIVE_SYNC_LAUNCH)
def _(env: Env) -> Any:
    env.npu.SyncLaunchStream(stream_ptr=env.pointer(0))


# --- section 5: what works (the guard must let every one through) --------------------------------
@_s("works-current_stream-equals-ext", "5", None, None)
def _(env: Env) -> Any:
    ext = env.ext()
    with env.current(ext):
        current = env.npu.current_stream()
        assert current == ext and type(current) is env.npu.Stream
    assert env.npu.current_stream() != ext


@_s("works-set_stream", "5", None, None)
def _(env: Env) -> Any:
    before = env.npu.current_stream()
    env.npu.set_stream(env.ext())
    assert env.npu.current_stream() == env.ext()
    env.npu.set_stream(before)


@_s("works-with-ext-context-manager", "5", None, None)
def _(env: Env) -> Any:
    ext = env.ext()
    with ext:
        assert env.npu.current_stream() == ext
    assert env.npu.current_stream() != ext


@_s("works-ops-and-implicit-syncs-under-ext", "5", None, None)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        tensor = env.tensor() + 1
        assert float(tensor.sum().item()) == 14.0
        assert tensor.cpu().shape == (4,)


def _attributes(env: Env) -> Any:
    ext = env.ext()
    assert ext.device_type == 20 and ext.stream_id & (1 << 30)
    assert ext.device_index == 0 and str(ext.device) == "npu:0"
    assert ext.npu_stream == env.pointer(0)
    assert hash(ext) == hash(env.ext()) and ext == env.ext()
    assert "npu_stream=" in repr(ext)
    assert isinstance(ext, env.npu.Stream) and isinstance(ext, env.torch.Stream)
    try:
        _ = ext.priority
    except RuntimeError as exc:  # torch_npu refuses it for every stream
        assert "get_priority" in str(exc)


SCENARIOS.append(
    Scenario("works-attributes-equality-hash-repr", "5", None, _attributes, reads_npu_stream=True)
)


@_s("works-stream-limits", "5", None, None, needs="stream_limit")
def _(env: Env) -> Any:
    ext = env.ext()
    limit = env.npu.get_stream_limit(ext)
    env.npu.set_stream_limit(ext, limit["cube_core_num"], limit["vector_core_num"])
    env.npu.reset_stream_limit(ext)


@_s("works-device-synchronize-under-ext", "5", None, None)
def _(env: Env) -> Any:
    with env.current(env.ext()):
        env.npu.synchronize()


@_s("works-external-event-reset", "5", None, None)
def _(env: Env) -> Any:
    env.npu.ExternalEvent().reset(env.ext())


@_s("works-launch_host_func_pending", "5", None, None)
def _(env: Env) -> Any:
    env.npu._launch_host_func_pending(env.ext(), lambda _data: None, None)


@_s("works-graph-own-stream-and-replay-on-ext", "5", None, None)
def _(env: Env) -> Any:
    graph = env.npu.NPUGraph()
    ext = env.ext()
    with env.current(ext):
        with env.npu.graph(graph):
            pass
        assert env.npu.current_stream() == ext
        graph.replay()


@_s("works-managed-stream-methods", "5", None, None)
def _(env: Env) -> Any:
    stream, other = env.managed(), env.managed()
    stream.synchronize()
    assert stream.query()
    event = stream.record_event()
    stream.wait_event(event)
    stream.wait_stream(other)
    stream.wait_stream(stream=other)


@_s("works-sync-launch-stream-methods", "5", None, None)
def _(env: Env) -> Any:
    stream = env.npu.SyncLaunchStream()
    stream.synchronize()
    stream.wait_stream(env.managed())


@_s("works-events-on-managed", "5", None, None)
def _(env: Env) -> Any:
    stream, event = env.managed(), env.event()
    event.record(stream)
    event.wait(stream=stream)
    event.record()
    event.wait()
    external_event = env.npu.ExternalEvent()
    external_event.wait(stream)
    external_event.record(stream)


@_s("works-record_stream-managed", "5", None, None)
def _(env: Env) -> Any:
    env.tensor().record_stream(env.managed())


@_s("works-graph-tasks-managed", "5", None, None)
def _(env: Env) -> Any:
    stream = env.managed()
    env.npu.graph_task_group_begin(stream)
    handle = env.npu.graph_task_group_end(stream)
    env.npu.graph_task_update_begin(stream, handle)
    env.npu.graph_task_update_end(stream)


@_s("works-super-kernel-managed-current", "5", None, None)
def _(env: Env) -> Any:
    with env.current(env.managed()):
        env.npu.super_kernel_scope_begin("scope")
        env.npu.super_kernel_scope_end("scope")


@_s("works-hooks-managed", "5", None, None)
def _(env: Env) -> Any:
    stream = env.managed()
    env.npu._launch_host_func(stream, lambda _data: None, None)
    env.npu._subscribe_report(stream)
    env.npu._unsubscribe_report(stream)


@_s("works-capture-managed", "5", None, None)
def _(env: Env) -> Any:
    graph = env.npu.NPUGraph()
    with env.npu.graph(graph, stream=env.managed()):
        pass


@_s("works-ctor-valid", "4.2", None, None)
def _(env: Env) -> Any:
    pointer = env.pointer(1)
    ext = env.npu.ExternalStream(pointer, device=0)
    assert ext == env.npu.ExternalStream(pointer)
    assert env.npu.Stream(stream_ptr=pointer) == ext
    assert env.npu.ExternalStream(pointer, stream_id=0) == ext


@_s("ctor-c_void_p-is-torch_npus-TypeError", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    pointer = env.pointer(1)
    assert env.npu.ExternalStream(ctypes.c_void_p(pointer)) == env.npu.ExternalStream(pointer)


class _Handle:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@_s("ctor-__index__-is-torch_npus-TypeError", "4.2", None, NOT_INT, off_error=TypeError)
def _(env: Env) -> Any:
    pointer = env.pointer(1)
    assert env.npu.ExternalStream(_Handle(pointer)) == env.npu.ExternalStream(pointer)


@_s("works-collective-managed-current", "5", None, None, needs="dist")
def _(env: Env) -> Any:
    tensor = env.tensor()
    with env.current(env.managed()):
        env.dist.all_reduce(tensor, group=env.group)
        env.dist.barrier(group=env.group)
        work = env.dist.all_reduce(tensor, group=env.group, async_op=True)
        work.wait()


@_s("works-work-wait-outside-ext", "5", None, None, needs="dist")
def _(env: Env) -> Any:
    with env.current(env.ext()):
        pass
    work = env.dist.all_reduce(env.tensor(), group=env.group, async_op=True)
    work.wait()


@_s("works-cpu-collective-under-ext", "5", None, None, needs="cpu_dist")
def _(env: Env) -> Any:
    tensor = env.torch.ones(4)
    with env.current(env.ext()):
        env.dist.all_reduce(tensor, group=env.cpu_group)
        env.dist.all_reduce(tensor, group=env.cpu_group, async_op=True).wait()


def guarded_by_extstream(ext: Any) -> bool:
    """Whether ``ext.synchronize()`` is refused by the guard (rather than by torch_npu)."""
    from extstream_guard import ExternalStreamError

    try:
        ext.synchronize()
    except ExternalStreamError:
        return True
    except RuntimeError:
        return False
    raise AssertionError("torch_npu accepted synchronize() on an external stream")


def overlapping_blocks(ext: Any, timeout: float = 10.0) -> dict[str, Any]:
    """Two threads' ``installed()`` blocks overlap; the second checks, after the first has
    left, whether ``ext`` is still guarded. Returns what it saw and the state afterwards."""
    import threading

    import extstream_guard
    from extstream_guard.install import patched

    one_in, two_in, one_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def first() -> None:
        with extstream_guard.installed():
            one_in.set()
            two_in.wait(timeout)
        one_out.set()

    def second() -> None:
        one_in.wait(timeout)
        with extstream_guard.installed():
            two_in.set()
            one_out.wait(timeout)
            seen["guarded after the first left"] = guarded_by_extstream(ext)
            seen["mode"] = extstream_guard.get_mode()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(2 * timeout)
    seen["mode after both"] = extstream_guard.get_mode()
    seen["patched after both"] = patched()
    return seen


#: What :func:`overlapping_blocks` must see.
OVERLAPPING_BLOCKS_EXPECTED = {
    "guarded after the first left": True,
    "mode": "raise",
    "mode after both": "off",
    "patched after both": [],
}


def leftover_wrapper(env: Env) -> dict[str, Any]:
    """Install; a user's ``mock.patch`` of ``Stream.synchronize`` spans ``uninstall()`` and so
    puts the guard's wrapper back; then reinstall in warn mode. Returns what was observed;
    ``Stream.synchronize`` is torch_npu's own again afterwards."""
    from unittest import mock

    import extstream_guard
    from extstream_guard import ExternalStreamWarning
    from extstream_guard._patching import unwrap

    stream_cls = env.npu.Stream
    raw = vars(stream_cls)["synchronize"]
    ext = env.ext()
    seen: dict[str, Any] = {}
    try:
        extstream_guard.install()
        first = vars(stream_cls)["synchronize"]
        with mock.patch.object(stream_cls, "synchronize", lambda self: "user's"):
            extstream_guard.uninstall()  # restores torch_npu's method under the user's patch
        seen["wrapper back"] = vars(stream_cls)["synchronize"] is first
        seen["leftover guards"] = guarded_by_extstream(ext)
        extstream_guard.install("warn")
        second = vars(stream_cls)["synchronize"]
        seen["new wrapper of the original"] = second is not first and unwrap(second) is raw
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with contextlib.suppress(RuntimeError):
                ext.synchronize()
        seen["warnings"] = sum(issubclass(w.category, ExternalStreamWarning) for w in caught)
        extstream_guard.uninstall()
        seen["restored exactly"] = vars(stream_cls)["synchronize"] is first
    finally:
        extstream_guard.uninstall()
        stream_cls.synchronize = raw
    return seen


#: What :func:`leftover_wrapper` must see (one warning: wrapped once, not twice).
LEFTOVER_WRAPPER_EXPECTED = {
    "wrapper back": True,
    "leftover guards": False,
    "new wrapper of the original": True,
    "warnings": 1,
    "restored exactly": True,
}


BY_ID = {scenario.id: scenario for scenario in SCENARIOS}
assert len(BY_ID) == len(SCENARIOS), "duplicate scenario ids"


def _needs(env: Env, scenario: Scenario) -> str | None:
    missing = {
        "dist": env.group is None,
        "lccl": env.lccl_group is None,
        "cpu_dist": env.cpu_group is None,
        "p2p": env.group is None or not env.p2p,
        "stream_limit": not hasattr(env.npu, "get_stream_limit"),
    }
    return scenario.needs if missing.get(scenario.needs, False) else None


def _native(env: Env, scenario: Scenario) -> None:
    import pytest

    from extstream_guard import ExternalStreamError

    if scenario.native is None:
        scenario.run(env)
        return
    with pytest.raises(scenario.off_error) as info:
        scenario.run(env)
    assert not isinstance(info.value, ExternalStreamError)
    assert scenario.native in str(info.value)


def check(env: Env, scenario: Scenario, mode: str) -> None:
    """Run ``scenario`` with the guard in ``mode`` and assert what must happen.

    off: torch_npu's own behaviour (its error text, or silence). raise: the scenario's rule as
    an ExternalStreamError whose message embeds torch_npu's text, or no error at all for what
    torch_npu supports. warn: the same text as a warning, then torch_npu's own behaviour.
    """
    import warnings

    import pytest

    import extstream_guard
    from extstream_guard import ExternalStreamError, ExternalStreamWarning

    reason = _needs(env, scenario)
    if reason:
        pytest.skip(f"this environment cannot run {reason!r} scenarios")
    if mode == "off":
        extstream_guard.uninstall()
        _native(env, scenario)
        return
    with extstream_guard.installed(mode), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if scenario.code is None:  # not the guard's to refuse: torch_npu's behaviour, unchanged
            _native(env, scenario)
        elif mode == "raise":
            with pytest.raises(ExternalStreamError) as info:
                scenario.run(env)
            assert info.value.code == scenario.code
            assert scenario.native is None or scenario.native in str(info.value)
            assert f"[{scenario.code}]" in str(info.value)
        else:
            _native(env, scenario)
    ours = [w for w in caught if issubclass(w.category, ExternalStreamWarning)]
    if scenario.code is None or mode == "raise":
        assert not ours, [str(w.message) for w in ours]
    else:
        # The first warning is the scenario's rule; nested checks may add more (ext.wait_stream(ext)
        # warns for both sides, then torch_npu's own record_event warns again).
        assert ours and f"[{scenario.code}]" in str(ours[0].message)
        assert scenario.native is None or scenario.native in str(ours[0].message)
