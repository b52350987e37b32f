"""The ExternalStream contract: every rule, its reason and its fix, as pure data.

This module is the one source of truth read by the linter (messages), the runtime guard
(error codes and texts), ``extstream-lint --explain`` and the README generator. It imports
nothing but the standard library, so ``import extstream_guard`` stays light.

Facts come from ``shared/spec/external-stream-contract.md`` (torch_npu 2.13.0 / master
9e73e708a); the ``native`` field of each rule names the rows (X01...) of that catalogue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "CODE_PREFIX",
    "COLLECTIVES",
    "NATIVE_QUERY",
    "NATIVE_SYNCHRONIZE",
    "RULES",
    "Rule",
    "native_not_supported",
]


@dataclass(frozen=True)
class Rule:
    """One diagnostic: what the linter flags and what the guard raises, under one code."""

    code: str
    category: str
    title: str
    #: What the rule flags, one markdown paragraph (ruff's "What it does").
    what: str
    #: Why torch_npu refuses it (ruff's "Why is this bad?").
    why: str
    #: The reason in a few words, for one-line lint messages.
    why_short: str
    #: Ways out, best first; the guard prints them as "fix with one of: A) ... B) ...".
    fixes: tuple[str, ...]
    #: The shortest fix, for one-line lint messages.
    fix_short: str
    #: Offending code (ruff's "Example").
    example: str
    #: The same code written so torch_npu supports it (ruff's "Use instead").
    instead: str
    #: Rows of the contract catalogue (spec section 2) this rule covers.
    native: tuple[str, ...] = ()

    def message(self, operation: str, subject: str) -> str:
        """The one-line lint message: code, operation, subject with origin, why and fix.

        ``subject`` names the stream with its preposition: "on ExternalStream 'ext'
        (created line 3)" or "while the current stream is ExternalStream 'ext' (...)".
        """
        if self.code in _CTOR_CODES:
            return f"{self.code} {operation}: {self.why_short}; {self.fix_short}"
        return (
            f"{self.code} {operation} {subject} is not supported by torch_npu "
            f"({self.why_short}): {self.fix_short}"
        )


_CTOR_CODES = frozenset({"XST000", "XST001", "XST002"})

#: Every code is this prefix and three digits. flake8 selects by prefix, so it must not
#: start with a letter another tool owns (``E``/``W``/``F``: ``ignore = E`` would hide it).
CODE_PREFIX = "XST"

# --- torch_npu's own error texts (spec section 1 and 2), reused verbatim by the guard ---------

#: X01, ``NPUStream::synchronize``.
NATIVE_SYNCHRONIZE = (
    "External NPU stream is not supported in NPUStream::synchronize. "
    "The caller is responsible for synchronization of external streams."
)
#: X02, ``NPUStream::query``.
NATIVE_QUERY = (
    "Cannot query external NPU stream status. The caller must track stream completion externally."
)
#: X23 and X24, ``THNPStream_pynew``.
NATIVE_PRIORITY = "Priority was explicitly set for an external stream"
NATIVE_SYNC_LAUNCH = "is_sync_launch was explicitly set for an external stream"


def native_not_supported(api_name: str, *, current: bool = False) -> str:
    """Text of torch_npu's ``checkNotExternalStream`` / ``checkCurrentStreamNotExternal``."""
    which = "current stream" if current else "stream"
    return (
        f"External NPU stream is not supported in {api_name}. "
        f"This path requires a torch_npu-managed {which}."
    )


# --- the rules ---------------------------------------------------------------------------------

_RULE_LIST: tuple[Rule, ...] = (
    Rule(
        code="XST000",
        category="INTERNAL",
        title="file could not be analysed",
        what="A file that mentions external streams but that extstream could not analyse "
        "(libcst cannot parse it, or the analysis failed). One finding per file; the run "
        "goes on with the other files.",
        why="A file that cannot be analysed may hide any of the other findings.",
        why_short="the file could not be analysed",
        fixes=(
            "Report the file and the message to extstream's issue tracker.",
            "Silence it with `# noqa: XST000` on line 1 if the file is known to be fine.",
        ),
        fix_short="report it to extstream, or add '# noqa: XST000' on line 1",
        example="x = () if 0 else(lambda:())  # valid Python that libcst 1.9 rejects",
        instead="x = () if 0 else (lambda: ())",
    ),
    Rule(
        code="XST001",
        category="NULL_PTR",
        title="null or non-integer stream pointer",
        what="`ExternalStream(ptr)` (or `torch.npu.Stream(stream_ptr=ptr)`) whose pointer is "
        "`0`, `None`, `False`/`True`, a negative number, a float or string literal, or a "
        "`ctypes.c_void_p` object.",
        why='torch_npu treats `stream_ptr=0` as "no pointer" and silently returns an '
        "ordinary pool stream wrapped in an `ExternalStream`: none of the external-stream "
        "restrictions apply and the work does not run on the other library's stream. `None`, "
        "floats, strings and `ctypes.c_void_p` raise `TypeError` from the C argument parser; "
        "`True` and negative numbers are accepted as garbage pointers.",
        why_short="a null pointer gives an ordinary pool stream and a non-integer a TypeError",
        fixes=(
            "Pass the integer `aclrtStream` handle created by the owning library "
            "(for a `ctypes.c_void_p`, pass its `.value`).",
            "If you have no external stream, use `torch.npu.Stream()`.",
        ),
        fix_short="pass the owning library's integer aclrtStream handle, "
        "or use torch.npu.Stream() when there is none",
        example="ext = torch.npu.ExternalStream(0)",
        instead="ext = torch.npu.ExternalStream(handle)  # int from the owning library",
        native=("X23", "X24"),
    ),
    Rule(
        code="XST002",
        category="BAD_CTOR",
        title="ExternalStream argument that torch_npu refuses or ignores",
        what="`ExternalStream(...)` / `torch.npu.Stream(stream_ptr=...)` with `priority=` or "
        "`is_sync_launch=` other than `0`; with `stream_id=`, `device_index=` or "
        "`device_type=`; with a third positional argument; and every "
        "`SyncLaunchStream(stream_ptr=...)`.",
        why="An external stream keeps the priority and launch mode its owner gave it, so "
        "torch_npu raises `RuntimeError` for a non-default `priority` or `is_sync_launch` "
        "(`SyncLaunchStream` always passes `is_sync_launch=1`). A non-zero `stream_id`, "
        "`device_index` or `device_type` makes torch_npu ignore `stream_ptr` and rebuild "
        "some other stream from the ids. The second positional argument is `device`, "
        "not `priority`.",
        why_short="torch_npu refuses or ignores this argument for an external stream",
        fixes=(
            "Drop `priority=` / `is_sync_launch=`: set them where the owning library creates "
            "the stream.",
            "Drop `stream_id=` / `device_index=` / `device_type=`; pass `device=` to choose "
            "the device.",
            "Wrap the handle with `ExternalStream(ptr)` instead of `SyncLaunchStream`.",
        ),
        fix_short="pass only stream_ptr and device",
        example="ext = torch.npu.ExternalStream(handle, priority=-1)",
        instead="ext = torch.npu.ExternalStream(handle, device=0)",
        native=("X23", "X24"),
    ),
    Rule(
        code="XST101",
        category="SYNC",
        title="synchronize() on an external stream",
        what="`ext.synchronize()`, `torch.Stream.synchronize(ext)`, and "
        "`torch.npu.current_stream().synchronize()` while an external stream is current.",
        why="torch_npu does not own the external stream and refuses to synchronize it "
        "(`NPUStream::synchronize`); the library that created it is responsible.",
        why_short="it cannot synchronize a stream it does not own",
        fixes=(
            "Synchronize through the library that owns the stream.",
            "Call `torch.npu.synchronize()` (device-wide; it covers the external stream).",
        ),
        fix_short="synchronize through the library that owns the stream, "
        "or torch.npu.synchronize()",
        example="ext = torch.npu.ExternalStream(handle)\next.synchronize()",
        instead="ext = torch.npu.ExternalStream(handle)\ntorch.npu.synchronize()",
        native=("X01",),
    ),
    Rule(
        code="XST102",
        category="QUERY",
        title="query() on an external stream",
        what="`ext.query()`, `torch.Stream.query(ext)`, and "
        "`torch.npu.current_stream().query()` while an external stream is current.",
        why="torch_npu cannot tell whether work submitted by another library has finished "
        "(`NPUStream::query`).",
        why_short="it cannot track completion of a stream it does not own",
        fixes=(
            "Ask the owning library whether its stream is idle.",
            "Call `torch.npu.synchronize()` when you need all work done.",
        ),
        fix_short="ask the owning library, or call torch.npu.synchronize()",
        example="if ext.query():\n    ...",
        instead="torch.npu.synchronize()  # or the owning library's own query",
        native=("X02",),
    ),
    Rule(
        code="XST103",
        category="RECORD",
        title="event recorded on an external stream",
        what="`ext.record_event()`, `Event.record(ext)` / `ExternalEvent.record(ext)` / "
        "`torch.Event.record(ext)`, `event.record()` with no stream while an external stream is "
        "current, and `s.wait_stream(ext)` (it first records an event on `ext`).",
        why="Recording an event needs torch_npu's task queue to track the stream, and an "
        "external stream is outside it (`NPUEvent::record`, `LaunchRecordEventTask`).",
        why_short="events cannot be recorded on a stream outside its task queue",
        fixes=(
            "Record the event with the owning library's API on its own stream handle.",
            "Call `torch.npu.synchronize()` instead of an event-based dependency.",
            "Run this part on a torch_npu-managed `torch.npu.Stream()`.",
        ),
        fix_short="record with the owning library's API, or torch.npu.synchronize(), "
        "or use a torch.npu.Stream()",
        example="done = ext.record_event()",
        instead="torch.npu.synchronize()",
        native=("X03", "X06"),
    ),
    Rule(
        code="XST104",
        category="WAIT",
        title="external stream made to wait on an event",
        what="`ext.wait_event(e)`, `ext.wait_stream(s)`, `Event.wait(ext)` / "
        "`ExternalEvent.wait(ext)`, and `event.wait()` / "
        "`torch.npu.current_stream().wait_stream(s)` while an external stream is current.",
        why="Making a stream wait needs torch_npu's task queue to own it, and an external "
        "stream is outside it (`NPUEvent::block`, `LaunchWaitEventTask`).",
        why_short="a stream outside its task queue cannot be made to wait",
        fixes=(
            "Make the owning library's stream wait with that library's API.",
            "Call `torch.npu.synchronize()` before handing work to the external stream.",
        ),
        fix_short="wait through the owning library's API, or torch.npu.synchronize() first",
        example="ext.wait_stream(torch.npu.current_stream())",
        instead="torch.npu.synchronize()\nwith torch.npu.stream(ext):\n    ...",
        native=("X04", "X07"),
    ),
    Rule(
        code="XST105",
        category="RECORD_STREAM",
        title="Tensor.record_stream on an external stream",
        what="`tensor.record_stream(ext)`, `torch.Tensor.record_stream(t, ext)` and "
        "`torch.ops.aten.record_stream(t, ext)`, including with "
        "`torch.npu.current_stream()` while an external stream is current.",
        why="The caching allocator would have to record events on the external stream when "
        "the tensor is freed, which torch_npu cannot do (`record_stream`).",
        why_short="the caching allocator cannot track an external stream",
        fixes=(
            "Keep the tensor alive until the external stream's work is done.",
            "Call `torch.npu.synchronize()` before the tensor is freed.",
        ),
        fix_short="keep the tensor alive until the work is done, or torch.npu.synchronize()",
        example="out.record_stream(ext)",
        instead="pending.append(out)  # keep it alive; release after torch.npu.synchronize()",
        native=("X05",),
    ),
    Rule(
        code="XST106",
        category="GRAPH_CAPTURE",
        title="NPU graph capture on an external stream",
        what="`torch.npu.graph(g, stream=ext)`, and `NPUGraph.capture_begin()` / "
        "`capture_end()` or `torch.accelerator.Graph()` capture while an external stream is "
        "current.",
        why="Graph capture records on the current stream through torch_npu's task queue "
        "(`NPUGraph::capture_begin` / `capture_end`). A failed `torch.npu.graph(g, stream=ext)` "
        "also leaves `ext` as the current stream.",
        why_short="graph capture needs a torch_npu-managed stream",
        fixes=(
            "Capture with `torch.npu.graph(g)` (its own capture stream) and replay the graph "
            "on the external stream: `g.replay()` under `torch.npu.stream(ext)` works.",
            "Use `torch.npu.make_graphed_callables(...)`.",
        ),
        fix_short="capture with torch.npu.graph(g) without stream= and replay on the "
        "external stream",
        example="with torch.npu.graph(g, stream=ext):\n    y = model(x)",
        instead="with torch.npu.graph(g):\n    y = model(x)\nwith torch.npu.stream(ext):\n"
        "    g.replay()",
        native=("X17", "X18"),
    ),
    Rule(
        code="XST107",
        category="GRAPH_TASK",
        title="graph task group or update on an external stream",
        what="`graph_task_group_begin(ext)`, `graph_task_group_end(ext)`, "
        "`graph_task_update_begin(ext, handle)` and `graph_task_update_end(ext)`.",
        why="Graph task groups and updates are tracked per torch_npu-managed stream "
        "(`graph_task_group_begin` and friends refuse external streams).",
        why_short="graph task groups need a torch_npu-managed stream",
        fixes=(
            "Run the task group on a `torch.npu.Stream()` and synchronize with the external "
            "library through `torch.npu.synchronize()`.",
        ),
        fix_short="use a torch.npu.Stream() for the task group",
        example="torch.npu.graph_task_group_begin(ext)",
        instead="s = torch.npu.Stream()\ntorch.npu.graph_task_group_begin(s)",
        native=("X08", "X09", "X10", "X11"),
    ),
    Rule(
        code="XST108",
        category="SUPER_KERNEL",
        title="super-kernel scope while an external stream is current",
        what="`torch.npu.super_kernel_scope_begin()` / `super_kernel_scope_end()` (and "
        "`torch.ops.npu.super_kernel_scope_*`) while an external stream is current.",
        why="Super-kernel scopes are opened on the current stream and need torch_npu to own "
        "it (`super_kernel_scope_begin` / `_end`).",
        why_short="super-kernel scopes need a torch_npu-managed current stream",
        fixes=(
            "Open the scope while a `torch.npu.Stream()` is current, outside "
            "`torch.npu.stream(ext)`.",
        ),
        fix_short="open the scope while a torch.npu.Stream() is current",
        example="with torch.npu.stream(ext):\n    torch.npu.super_kernel_scope_begin()",
        instead="with torch.npu.stream(torch.npu.Stream()):\n"
        "    torch.npu.super_kernel_scope_begin()",
        native=("X12", "X13"),
    ),
    Rule(
        code="XST109",
        category="CALLBACK",
        title="host callback launched on an external stream",
        what="`torch_npu.npu._launch_host_func(ext, fn, user_data)`.",
        why="Host callbacks are launched through torch_npu's callback machinery, which only "
        "serves managed streams (`launch_callback`).",
        why_short="host callbacks need a torch_npu-managed stream",
        fixes=(
            "Launch the callback with the owning library's API on its stream.",
            "Use `torch_npu.npu._launch_host_func_pending(ext, ...)`, which has no such "
            "restriction.",
        ),
        fix_short="launch it through the owning library, or _launch_host_func_pending",
        example="torch_npu.npu._launch_host_func(ext, fn, data)",
        instead="torch_npu.npu._launch_host_func_pending(ext, fn, data)",
        native=("X14",),
    ),
    Rule(
        code="XST110",
        category="REPORT",
        title="task report subscription on an external stream",
        what="`torch_npu.npu._subscribe_report(ext)` and `_unsubscribe_report(ext)`.",
        why="Report subscription is tied to torch_npu-managed streams (`subscribe_report`); "
        "unsubscribing first synchronizes the stream, which fails too.",
        why_short="task reports need a torch_npu-managed stream",
        fixes=("Subscribe a `torch.npu.Stream()` instead, or use the owning library's reports.",),
        fix_short="subscribe a torch.npu.Stream() instead",
        example="torch_npu.npu._subscribe_report(ext)",
        instead="torch_npu.npu._subscribe_report(torch.npu.Stream())",
        native=("X15", "X16"),
    ),
    Rule(
        code="XST111",
        category="COLLECTIVE",
        title="HCCL collective while an external stream is current",
        what="`torch.distributed` collectives, point-to-point ops, `barrier` and "
        "`Work.wait()` / `Work.synchronize()` while an external stream is current.",
        why="HCCL (and LCCL) collectives run on and synchronize with the current stream, "
        "which torch_npu must own (`ProcessGroupHCCL::collective`). A refused collective has "
        "already advanced the process group's sequence counters, and ranks that did not fail "
        "block.",
        why_short="collectives need a torch_npu-managed current stream",
        fixes=(
            "Run the collective outside `torch.npu.stream(ext)`, after `torch.npu.synchronize()`.",
            "Make a `torch.npu.Stream()` current for communication.",
        ),
        fix_short="run the collective outside torch.npu.stream(ext), after torch.npu.synchronize()",
        example="with torch.npu.stream(ext):\n    dist.all_reduce(t)",
        instead="with torch.npu.stream(ext):\n    y = model(x)\ntorch.npu.synchronize()\n"
        "dist.all_reduce(y)",
        native=("X19", "X20", "X03", "X04"),
    ),
)

#: Every rule by code, in code order.
RULES: Mapping[str, Rule] = {rule.code: rule for rule in _RULE_LIST}

# --- API names (canonical spellings; the linter maps aliases onto them) ------------------------

#: ``torch.distributed`` functions that run a collective or point-to-point op on the current
#: stream (spec section 2.4); also looked up under ``torch_npu.distributed``.
COLLECTIVES: tuple[str, ...] = (
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_single",
    "_all_gather_base",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "reduce_scatter_single",
    "_reduce_scatter_base",
    "all_to_all",
    "all_to_all_single",
    "gather",
    "scatter",
    "barrier",
    "all_gather_object",
    "gather_object",
    "broadcast_object_list",
    "scatter_object_list",
    "send",
    "recv",
    "isend",
    "irecv",
    "batch_isend_irecv",
    "all_reduce_coalesced",
    "all_gather_into_tensor_uneven",
    "reduce_scatter_tensor_uneven",
    "all_to_all_vc",
)

# --- API spellings (spec sections 2 and 3), by canonical qualified name -------------------------
# The linter maps every alias onto these names first: ``torch.npu`` -> ``torch_npu.npu``,
# ``torch_npu.npu.{streams,graphs,utils}`` -> ``torch_npu.npu``, and ``torch.cuda`` ->
# ``torch_npu.npu`` in modules that import ``torch_npu.contrib.transfer_to_npu``.

#: The class whose instances wrap an external ``aclrtStream``.
EXTERNAL_STREAM_CLASS = "torch_npu.npu.ExternalStream"
#: ``Stream(stream_ptr=p)`` also builds an external stream (spec section 3).
STREAM_CLASS = "torch_npu.npu.Stream"
#: ``SyncLaunchStream(stream_ptr=p)`` always fails: it passes ``is_sync_launch=1``.
SYNC_LAUNCH_STREAM_CLASS = "torch_npu.npu.SyncLaunchStream"
#: Classes whose methods can be called unbound: ``torch.Stream.synchronize(ext)``.
STREAM_CLASSES: tuple[str, ...] = (
    "torch.Stream",
    STREAM_CLASS,
    EXTERNAL_STREAM_CLASS,
    SYNC_LAUNCH_STREAM_CLASS,
)
#: Keywords that make torch_npu ignore ``stream_ptr`` (the ``unpack3`` branch, spec 4.1).
ID_KEYWORDS: tuple[str, ...] = ("stream_id", "device_index", "device_type")
#: Keywords that must keep their default ``0`` on an external stream (X23, X24).
DEFAULT_ZERO_KEYWORDS: tuple[str, ...] = ("priority", "is_sync_launch")

#: Stream methods refused when the receiver is external: method -> code.
STREAM_METHODS: Mapping[str, str] = {
    "synchronize": "XST101",
    "query": "XST102",
    "record_event": "XST103",
    "wait_event": "XST104",
}
#: ``s.wait_stream(other)`` records on ``other`` first (XST103), then waits on ``s`` (XST104).
WAIT_STREAM_METHOD = "wait_stream"

#: Methods refused when a stream argument is external: method -> (code, position, keyword).
#: ``record``/``wait`` with no stream use the current stream (events only).
STREAM_ARGUMENT_METHODS: Mapping[str, tuple[str, int, str]] = {
    "record": ("XST103", 0, "stream"),
    "wait": ("XST104", 0, "stream"),
    "record_stream": ("XST105", 0, "s"),
}

#: Functions refused when a stream argument is external: name -> (code, position, keyword).
STREAM_ARGUMENT_FUNCTIONS: Mapping[str, tuple[str, int, str]] = {
    "torch_npu.npu.graph": ("XST106", 2, "stream"),
    "torch_npu.npu.graph_task_group_begin": ("XST107", 0, "stream"),
    "torch_npu.npu.graph_task_group_end": ("XST107", 0, "stream"),
    "torch_npu.npu.graph_task_update_begin": ("XST107", 0, "stream"),
    "torch_npu.npu.graph_task_update_end": ("XST107", 0, "stream"),
    "torch_npu._C._graph_task_group_begin": ("XST107", 0, "stream"),
    "torch_npu._C._graph_task_group_end": ("XST107", 0, "stream"),
    "torch_npu._C._graph_task_update_begin": ("XST107", 0, "stream"),
    "torch_npu._C._graph_task_update_end": ("XST107", 0, "stream"),
    "torch_npu.npu._launch_host_func": ("XST109", 0, "op_stream"),
    "torch_npu.npu._subscribe_report": ("XST110", 0, "op_stream"),
    "torch_npu.npu._unsubscribe_report": ("XST110", 0, "op_stream"),
    "torch.Tensor.record_stream": ("XST105", 1, "s"),
    "torch.ops.aten.record_stream": ("XST105", 1, "s"),
    "torch.ops.aten.record_stream.default": ("XST105", 1, "s"),
}

#: Functions refused while the current stream is external: name -> code.
CURRENT_STREAM_FUNCTIONS: Mapping[str, str] = {
    "torch_npu.npu.super_kernel_scope_begin": "XST108",
    "torch_npu.npu.super_kernel_scope_end": "XST108",
    "torch.ops.npu.super_kernel_scope_begin": "XST108",
    "torch.ops.npu.super_kernel_scope_end": "XST108",
    "torch.ops.npu.super_kernel_scope_begin.default": "XST108",
    "torch.ops.npu.super_kernel_scope_end.default": "XST108",
    **{f"torch.distributed.{name}": "XST111" for name in COLLECTIVES},
    **{f"torch_npu.distributed.{name}": "XST111" for name in COLLECTIVES},
}
#: Methods of an NPU graph refused while the current stream is external (XST106).
GRAPH_CAPTURE_METHODS: tuple[str, ...] = ("capture_begin", "capture_end")
#: Methods of a ``torch.distributed`` Work handle refused while ext is current (XST111).
WORK_WAIT_METHODS: tuple[str, ...] = ("wait", "synchronize")

#: Functions returning the current stream (a plain stream object carrying the external id).
CURRENT_STREAM_GETTERS: tuple[str, ...] = (
    "torch_npu.npu.current_stream",
    "torch.accelerator.current_stream",
)
#: Functions making their stream argument current until it is set back.
STREAM_SETTERS: tuple[str, ...] = ("torch_npu.npu.set_stream", "torch.accelerator.set_stream")
#: Context managers making their stream argument current for their body.
STREAM_CONTEXTS: tuple[str, ...] = ("torch_npu.npu.stream", "torch_npu.npu.StreamContext")
#: Event classes whose ``record()`` / ``wait()`` default to the current stream.
EVENT_CLASSES: tuple[str, ...] = (
    "torch_npu.npu.Event",
    "torch_npu.npu.ExternalEvent",
    "torch.Event",
)
#: NPU graph classes (``capture_begin``/``capture_end`` on the current stream).
GRAPH_CLASSES: tuple[str, ...] = ("torch_npu.npu.NPUGraph",)
#: Graphs whose ``with`` block captures on the current stream (XST106 when it is external).
CAPTURING_CONTEXTS: tuple[str, ...] = ("torch.accelerator.Graph",)
#: ``torch.npu.graph.default_capture_stream = ext`` makes ``torch.npu.graph(g)`` capture on ext.
DEFAULT_CAPTURE_STREAM = "torch_npu.npu.graph.default_capture_stream"
#: Importing this module copies torch_npu.npu's names onto torch.cuda (spec section 3).
TRANSFER_TO_NPU = "torch_npu.contrib.transfer_to_npu"
