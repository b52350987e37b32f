"""Every patch point of the guard, in one table.

A row names where the attribute lives (``owners``: dotted paths of the class or of every module
namespace that exports the function; duplicates resolve to one object and are patched once),
the attribute, the rule code, torch_npu's native text, and ``kind`` - how the wrapper finds the
stream to check:

``self``          the receiver (``ext.synchronize()``)
``arg``           positional ``index`` (counting ``self`` for methods) or keyword ``name``
``event``         ``Event.record/wait(stream=None)``: the argument, else the current stream
``current``       the calling thread's current stream (no stream argument at all)
``attr``          attribute ``name`` of the receiver (``graph.__enter__``: ``capture_stream``)
``wait_stream``   both sides: the argument is recorded on (XST103), the receiver waits (XST104)
``ctor_*``        constructor arguments (XST001 / XST002), see :mod:`extstream_guard.ctor`
``collective``    the current stream of the device of every NPU tensor among the arguments
``group``         the same, and for calls without tensors (``barrier``, object collectives) the
                  current device, when the group's backend is HCCL/LCCL
``work``          ``wait``/``synchronize`` of the work classes that guarded collectives return

``subclass_only`` rows are applied to the guarded ``extstream_guard.ExternalStream`` class
only (see :attr:`Point.subclass_only`).

``defined_in`` (``module:qualname``) is where the contract test finds the Python definition in
the torch_npu wheel; ``params`` is the leading parameter list the wrapper relies on.

The C base types (``torch_npu._C._NPUStreamBase`` ...) are never patched: like every static C
type they refuse attribute assignment. Everything here is a Python-level class or module.
"""

from __future__ import annotations

from dataclasses import dataclass

from extstream_lint.contract import (
    COLLECTIVES,
    NATIVE_QUERY,
    NATIVE_SYNCHRONIZE,
    native_not_supported,
)

__all__ = ["POINTS", "WORK_POINTS", "Point"]


@dataclass(frozen=True)
class Point:
    """One attribute the guard replaces with a checking wrapper."""

    owners: tuple[str, ...]
    attr: str
    code: str
    operation: str
    native: str
    kind: str
    index: int = 0
    name: str = ""
    defined_in: str = ""
    params: tuple[str, ...] = ()
    #: The attribute may be absent (older torch / torch_npu); skipped silently then.
    optional: bool = False
    #: Only on the guarded ``extstream_guard.ExternalStream`` class, not installed globally:
    #: ``Stream.record_event`` / ``wait_event`` reach ``Event.record`` / ``Event.wait``, which
    #: are patched with the same code and native text, so a second check per call would only
    #: add cost on every ordinary stream.
    subclass_only: bool = False


_RECORD = native_not_supported("NPUEvent::record")
_BLOCK = native_not_supported("NPUEvent::block")
_HCCL = native_not_supported("ProcessGroupHCCL::collective", current=True)
_S = "torch_npu.npu.streams"
_G = "torch_npu.npu.graphs"


def _stream_methods(cls: str) -> tuple[Point, ...]:
    owners = (f"torch_npu.npu.{cls}", f"{_S}.{cls}")
    where = f"{_S}:{cls}"
    return (
        Point(owners, "synchronize", "XST101", f"{cls}.synchronize", NATIVE_SYNCHRONIZE, "self",
              defined_in=f"{where}.synchronize", params=("self",)),
        Point(owners, "query", "XST102", f"{cls}.query", NATIVE_QUERY, "self",
              defined_in=f"{where}.query", params=("self",)),
        Point(owners, "record_event", "XST103", f"{cls}.record_event", _RECORD, "self",
              defined_in=f"{where}.record_event", params=("self", "event"), subclass_only=True),
        Point(owners, "wait_event", "XST104", f"{cls}.wait_event", _BLOCK, "self",
              defined_in=f"{where}.wait_event", params=("self", "event"), subclass_only=True),
        Point(owners, "wait_stream", "XST104", f"{cls}.wait_stream", _BLOCK, "wait_stream",
              index=1, name="stream", defined_in=f"{where}.wait_stream",
              params=("self", "stream")),
    )  # fmt: skip


def _event_methods(cls: str) -> tuple[Point, ...]:
    owners = (f"torch_npu.npu.{cls}", f"{_S}.{cls}")
    where = f"{_S}:{cls}"
    return (
        Point(owners, "record", "XST103", f"{cls}.record", _RECORD, "event",
              index=1, name="stream", defined_in=f"{where}.record", params=("self", "stream")),
        Point(owners, "wait", "XST104", f"{cls}.wait", _BLOCK, "event",
              index=1, name="stream", defined_in=f"{where}.wait", params=("self", "stream")),
    )  # fmt: skip


def _graph_task(attr: str, params: tuple[str, ...]) -> Point:
    return Point(("torch_npu.npu", _G), attr, "XST107", f"torch.npu.{attr}",
                 native_not_supported(attr), "arg", index=0, name="stream",
                 defined_in=f"{_G}:{attr}", params=params)  # fmt: skip


def _super_kernel(attr: str) -> Point:
    return Point(("torch_npu.npu", _G), attr, "XST108", f"torch.npu.{attr}",
                 native_not_supported(attr), "current", defined_in=f"{_G}:{attr}",
                 params=("scope_name",))  # fmt: skip


def _private_hook(attr: str, code: str, native: str, params: tuple[str, ...]) -> Point:
    return Point(("torch_npu.npu",), attr, code, f"torch_npu.npu.{attr}", native, "arg",
                 index=0, name="op_stream", defined_in=f"torch_npu.npu:{attr}",
                 params=params)  # fmt: skip


#: Collectives whose failure is torch_npu's event record in ``syncStreams`` (spec 2.4).
_EVENT_RECORD_COLLECTIVES = frozenset(
    {"send", "recv", "isend", "irecv", "batch_isend_irecv", "all_reduce_coalesced"}
)
#: Calls without tensor arguments: the group's backend decides whether NPU is involved.
GROUP_ONLY_COLLECTIVES = frozenset(
    {"barrier", "all_gather_object", "gather_object", "broadcast_object_list",
     "scatter_object_list"}
)  # fmt: skip
#: Functions torch_npu adds (``torch_npu.distributed``) or re-implements under a private name
#: in ``torch_npu.distributed.distributed_c10d`` (it also rebinds the torch names to them).
_NPU_DIST_NAMES = {
    "all_gather_into_tensor_uneven": "_all_gather_into_tensor_uneven",
    "reduce_scatter_tensor_uneven": "_reduce_scatter_tensor_uneven",
    "all_to_all_vc": "_all_to_all_vc",
    "gather": "_gather",
    "gather_object": "_gather_object",
    "batch_isend_irecv": "_batch_isend_irecv",
}


def _collective(owners: tuple[str, ...], attr: str, public: str, defined_in: str = "") -> Point:
    native = _RECORD if public in _EVENT_RECORD_COLLECTIVES else _HCCL
    kind = "group" if public in GROUP_ONLY_COLLECTIVES else "collective"
    return Point(owners, attr, "XST111", f"torch.distributed.{public}", native, kind,
                 defined_in=defined_in, optional=True)  # fmt: skip


def _collectives() -> tuple[Point, ...]:
    points = [
        _collective(("torch.distributed", "torch.distributed.distributed_c10d"), name, name)
        for name in COLLECTIVES
        if name not in ("all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven",
                        "all_to_all_vc")
    ]  # fmt: skip
    for public, private in _NPU_DIST_NAMES.items():
        where = f"torch_npu.distributed.distributed_c10d:{private}"
        points.append(
            _collective(("torch_npu.distributed.distributed_c10d",), private, public, where)
        )
        if public.endswith(("_uneven", "_vc")):
            points.append(_collective(("torch_npu.distributed",), public, public, where))
    return tuple(points)


POINTS: tuple[Point, ...] = (
    # --- constructors (XST001 / XST002) ---------------------------------------------------
    Point(("torch_npu.npu.ExternalStream", f"{_S}.ExternalStream"), "__new__", "XST001",
          "ExternalStream", "", "ctor_external", defined_in=f"{_S}:ExternalStream.__new__",
          params=("cls", "stream_ptr", "device")),
    Point(("torch_npu.npu.Stream", f"{_S}.Stream"), "__new__", "XST001", "Stream",
          "", "ctor_stream", defined_in=f"{_S}:Stream.__new__",
          params=("cls", "device", "priority")),
    Point(("torch_npu.npu.SyncLaunchStream", f"{_S}.SyncLaunchStream"), "__new__", "XST002",
          "SyncLaunchStream", "", "ctor_sync", defined_in=f"{_S}:SyncLaunchStream.__new__",
          params=("cls", "device", "priority")),
    # --- stream methods (X01-X04) ---------------------------------------------------------
    *_stream_methods("Stream"),
    *_stream_methods("SyncLaunchStream"),
    # --- event methods (X03 / X04), explicit stream or the current one ------------------
    *_event_methods("Event"),
    *_event_methods("ExternalEvent"),
    # --- Tensor.record_stream (X05) --------------------------------------------------------
    Point(("torch.Tensor",), "record_stream", "XST105", "Tensor.record_stream",
          native_not_supported("record_stream"), "arg", index=1, name="s",
          params=("self", "s")),
    # --- graphs (X08-X13, X17, X18) --------------------------------------------------------
    Point((f"{_G}.NPUGraph", "torch_npu.npu.NPUGraph"), "capture_begin", "XST106",
          "NPUGraph.capture_begin", native_not_supported("NPUGraph::capture_begin"), "current",
          defined_in=f"{_G}:NPUGraph.capture_begin",
          params=("self", "pool", "capture_error_mode")),
    Point((f"{_G}.NPUGraph", "torch_npu.npu.NPUGraph"), "capture_end", "XST106",
          "NPUGraph.capture_end", native_not_supported("NPUGraph::capture_end"), "current",
          defined_in=f"{_G}:NPUGraph.capture_end", params=("self",)),
    Point((f"{_G}.graph", "torch_npu.npu.graph"), "__enter__", "XST106",
          "torch.npu.graph(..., stream=...)", native_not_supported("NPUGraph::capture_begin"),
          "attr", name="capture_stream", defined_in=f"{_G}:graph.__enter__",
          params=("self",)),
    _graph_task("graph_task_group_begin", ("stream",)),
    _graph_task("graph_task_group_end", ("stream",)),
    _graph_task("graph_task_update_begin", ("stream", "handle")),
    _graph_task("graph_task_update_end", ("stream",)),
    _super_kernel("super_kernel_scope_begin"),
    _super_kernel("super_kernel_scope_end"),
    # --- private hooks (X14-X16) -----------------------------------------------------------
    _private_hook("_launch_host_func", "XST109", native_not_supported("launch_callback"),
                  ("op_stream", "fn", "user_data")),
    _private_hook("_subscribe_report", "XST110", native_not_supported("subscribe_report"),
                  ("op_stream",)),
    # _unsubscribe_report synchronizes the stream first (Graph.cpp:591): X01's text.
    _private_hook("_unsubscribe_report", "XST110", NATIVE_SYNCHRONIZE, ("op_stream",)),
    # --- torch.distributed / torch_npu.distributed (X19, X20, X03 via syncStreams) -----------
    *_collectives(),
)  # fmt: skip

#: Patched lazily on the concrete class of works returned by guarded NPU collectives
#: (``WorkHCCL`` ...), never on the shared base ``torch.distributed.Work``.
WORK_POINTS: tuple[Point, ...] = (
    Point((), "wait", "XST111", "Work.wait", _BLOCK, "work", optional=True),
    Point((), "synchronize", "XST111", "Work.synchronize", _BLOCK, "work", optional=True),
)
