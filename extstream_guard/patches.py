"""Every patch point of the guard, derived from the contract's surface table.

Each refused row of :data:`extstream_lint.contract.APIS` names its guard patches
(:class:`~extstream_lint.contract.Patch`); this module turns them into :class:`Point` rows, the
form the wrappers read: where the attribute lives (``owners``: dotted paths of the class or of
every module namespace that exports the function; duplicates resolve to one object and are
patched once), the attribute, the rule code, torch_npu's native text, and ``kind`` - how the
wrapper finds the stream to check:

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
``group_method``  a ``ProcessGroup`` method: like ``collective``, the receiver is the group
``work``          ``wait``/``synchronize`` of the works that guarded collectives return

``subclass_only`` rows are applied to the guarded ``extstream_guard.ExternalStream`` class
only (see :attr:`Point.subclass_only`).

``defined_in`` (``module:qualname``) is where the contract test finds the Python definition in
the torch_npu wheel; ``params`` is the leading parameter list the wrapper relies on.

The C base types (``torch_npu._C._NPUStreamBase`` ...) are never patched: like every static C
type they refuse attribute assignment. Everything here is a Python-level class or module; the
spellings the guard cannot see say why in their row's ``guard_blind``.
"""

from __future__ import annotations

from dataclasses import dataclass

from extstream_lint.contract import (
    ARG,
    ARG_OR_CURRENT,
    CURRENT,
    REFUSED,
    SELF,
    WAIT_STREAM,
    Api,
    Patch,
    native_not_supported,
)

__all__ = ["GROUP_METHOD_POINTS", "HAZARD_POINTS", "POINTS", "WORK_POINTS", "Point", "points_of"]


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
    #: The attribute may be absent (older torch / torch_npu); ``install()`` then names it in
    #: its ``GuardCoverageWarning`` (as it names any missing target) and goes on.
    optional: bool = False
    #: Only on the guarded ``extstream_guard.ExternalStream`` class, not installed globally:
    #: ``Stream.record_event`` / ``wait_event`` reach ``Event.record`` / ``Event.wait``, which
    #: are patched with the same code and native text, so a second check per call would only
    #: add cost on every ordinary stream.
    subclass_only: bool = False


#: The wrapper kind of each way a stream is supplied (rows whose patch names no kind).
_KINDS = {
    SELF: "self",
    ARG: "arg",
    ARG_OR_CURRENT: "event",
    CURRENT: "current",
    WAIT_STREAM: "wait_stream",
}

#: Kinds wrapped on the guarded ``extstream_guard.ExternalStream`` class only (issue 10):
#: ``Stream.wait_stream`` reaches the guarded ``Event.record`` / ``Event.wait``, which refuse
#: the same calls with the same codes; a wrapper of its own would be a third guard frame on
#: every call on an ordinary stream (so, like ``record_event`` / ``wait_event``, subclass only).
_CLASS_ONLY = frozenset({"wait_stream"})

#: Kinds whose wrapper reads the stream from an argument (``index`` / ``name``).
_ARGUMENT_KINDS = frozenset({"arg", "event", "wait_stream"})


def _operation(api: Api, patch: Patch, kind: str) -> str:
    """How error messages name the call: ``Stream.synchronize``, ``torch.npu.graph(...)``."""
    if kind.startswith("ctor_"):
        return api.attr
    if kind == "work":
        return f"Work.{patch.attr}"
    if kind == "attr":
        return f"{_public(api.name)}(..., {api.keyword}=...)"
    if api.method:
        return f"{patch.owners[0].rpartition('.')[2]}.{patch.attr}"
    return _public(api.name)


def _public(name: str) -> str:
    """``torch_npu.npu.graph`` as users write it (``torch.npu.graph``); private names keep
    torch_npu's module, where they are documented."""
    if name.startswith("torch_npu.npu.") and not name.rpartition(".")[2].startswith("_"):
        return "torch.npu." + name[len("torch_npu.npu.") :]
    return name


def points_of(api: Api) -> tuple[Point, ...]:
    """The guard's points for one refused row (none when the guard cannot see it)."""
    assert api.code is not None
    points = []
    for patch in api.guard:
        kind = patch.kind or _KINDS[api.supply]
        index, name = 0, ""
        if kind in _ARGUMENT_KINDS:  # positions count ``self`` for methods
            index, name = api.position + (1 if api.method else 0), api.keyword
        elif kind == "attr":
            name = patch.attribute
        points.append(
            Point(patch.owners, patch.attr, api.code, _operation(api, patch, kind),
                  patch.native or api.native, kind, index, name, patch.defined_in,
                  patch.params, patch.optional, patch.subclass_only or kind in _CLASS_ONLY)
        )  # fmt: skip
    return tuple(points)


_ALL: tuple[Point, ...] = tuple(point for api in REFUSED for point in points_of(api))

#: Every point installed on import of the guard (classes and module namespaces).
POINTS: tuple[Point, ...] = tuple(p for p in _ALL if p.kind != "work")
#: Patched lazily, by the first guarded NPU collective, on the class defining ``wait`` for the
#: works it returns: ``torch.distributed.Work`` itself for torch_npu's C++ HCCL works. The
#: wrappers check only works that guarded collectives returned.
WORK_POINTS: tuple[Point, ...] = tuple(p for p in _ALL if p.kind == "work")


# --- issue 10: ProcessGroup methods ---------------------------------------------------------
# ProcessGroup methods (contract 2.4: "the same methods on a ProcessGroup object").
# ``dist.all_reduce(t)`` ends in ``group.allreduce([t], opts)``; a user may call that method
# directly (``dist.group.WORLD.allreduce([t])``). torch_npu's groups are plain C++
# ``torch.distributed.ProcessGroup`` objects, so the guard wraps the methods of that class.
# Backend objects (``pg._get_backend(device)``, torch_npu's ``ProcessGroupHCCL``) are private
# API and not covered. Every name exists in torch 2.13; install warns about any a torch lacks.
_GROUP_METHODS = (
    "allreduce", "allreduce_coalesced", "broadcast", "reduce", "allgather", "_allgather_base",
    "all_gather_single", "allgather_coalesced", "allgather_into_tensor_coalesced", "gather",
    "scatter", "reduce_scatter", "_reduce_scatter_base", "reduce_scatter_single",
    "reduce_scatter_tensor_coalesced", "alltoall", "alltoall_base", "all_to_all_single",
    "barrier", "send", "recv", "recv_anysource",
)  # fmt: skip
#: Methods whose failure is torch_npu's event record in ``syncStreams`` (spec 2.4).
_GROUP_EVENT_RECORD = frozenset(
    {"send", "recv", "recv_anysource", "allreduce_coalesced", "allgather_coalesced",
     "allgather_into_tensor_coalesced", "reduce_scatter_tensor_coalesced"}
)  # fmt: skip
_RECORD = native_not_supported("NPUEvent::record")
_HCCL = native_not_supported("ProcessGroupHCCL::collective", current=True)

GROUP_METHOD_POINTS: tuple[Point, ...] = tuple(
    Point(("torch.distributed.ProcessGroup",), name, "XST111", f"ProcessGroup.{name}",
          _RECORD if name in _GROUP_EVENT_RECORD else _HCCL, "group_method", optional=True)
    for name in _GROUP_METHODS
)  # fmt: skip


# --- issue 17: the deferred hazards, armed at the first external stream ------------------------
# Not installed by ``install()`` itself: :func:`extstream_guard.hazards.arm` patches them once,
# when the guard first sees an external stream made (or one current at install), and leaves
# them in place until uninstall (issue 31), so programs that never make one pay nothing. Kinds
# (wrappers in :mod:`extstream_guard._copies` and :mod:`extstream_guard._autograd`):
#
# ``copy_to``       ``Tensor.to``: G201 pinned non_blocking copies, G112 NPU-to-NPU copies.
#                   ``Tensor.npu`` / ``.cuda`` (remapped by ``transfer_to_npu``) are torch's
#                   generated ``wrap_tensor_to``, which calls ``self.to(device=...,
#                   non_blocking=...)``: they reach this wrapper, so they get no second frame.
# ``copy_``         ``Tensor.copy_`` / ``UntypedStorage.copy_``: the same checks.
# ``switch_*``      where a thread's current stream changes (G203 records the autograd sequence
#                   number there): ``torch_npu._C._npu_setStream``, which every
#                   ``torch.npu.set_stream`` reaches by module attribute (``torch.npu.stream``'s
#                   ``StreamContext`` too, and a ``set_stream`` bound before arming),
#                   ``torch.accelerator.set_stream``, ``with stream:`` (torch.Stream's C
#                   context manager, inherited by torch_npu's ``Stream`` and
#                   ``SyncLaunchStream``, which is not a ``Stream``).
# ``backward``      ``_engine_run_backward``, the module global ``backward`` and ``grad`` call.
# ``replay``        ``NPUGraph.replay`` (G202: warns once).
_COPY = "torch.Tensor"
HAZARD_POINTS: tuple[Point, ...] = (
    Point((_COPY,), "to", "XST201", "Tensor.to", "", "copy_to"),
    Point((_COPY,), "copy_", "XST201", "Tensor.copy_", "", "copy_"),
    Point(("torch.UntypedStorage",), "copy_", "XST201", "UntypedStorage.copy_", "", "copy_"),
    Point(("torch_npu._C",), "_npu_setStream", "XST203", "torch.npu.set_stream", "",
          "switch_raw"),
    Point(("torch.accelerator",), "set_stream", "XST203", "torch.accelerator.set_stream", "",
          "switch_set"),
    Point(("torch_npu.npu.Stream",), "__enter__", "XST203", "Stream.__enter__", "",
          "switch_enter"),
    Point(("torch_npu.npu.Stream",), "__exit__", "XST203", "Stream.__exit__", "",
          "switch_exit"),
    Point(("torch_npu.npu.SyncLaunchStream",), "__enter__", "XST203",
          "SyncLaunchStream.__enter__", "", "switch_enter"),
    Point(("torch_npu.npu.SyncLaunchStream",), "__exit__", "XST203",
          "SyncLaunchStream.__exit__", "", "switch_exit"),
    Point(("torch.autograd", "torch.autograd.graph"), "_engine_run_backward", "XST203",
          "backward", "", "backward"),
    Point(("torch_npu.npu.NPUGraph",), "replay", "XST202", "NPUGraph.replay", "", "replay",
          defined_in="torch_npu.npu.graphs:NPUGraph.replay", params=("self",)),
)  # fmt: skip
