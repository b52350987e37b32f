"""The ExternalStream contract: every rule, its reason and its fix, as pure data.

This module is the one source of truth read by the linter (messages), the runtime guard
(error codes and texts), ``extstream-lint --explain`` and the README generator. It imports
nothing but the standard library, so ``import extstream_guard`` stays light.

Facts come from the project's contract catalogue of torch_npu 2.13.0 (master 9e73e708a); the
``rows`` field of each :class:`Api` names its rows there (X01...), and ``native`` its text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "CODE_PREFIX",
    "COLLECTIVES",
    "DEFAULT_IGNORE",
    "HAZARDS",
    "NATIVE_QUERY",
    "NATIVE_SYNCHRONIZE",
    "RULES",
    "Hazard",
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
    #: torch_npu accepts the call and fails later (or only in some states): the message
    #: says what happens and when instead of "is not supported" (spec section 2.6).
    deferred: bool = False
    #: Off by default (low precision): reported only when selected, like flake8's
    #: ``extend-default-ignore`` codes; the CLI and the flake8 plugin both read
    #: :data:`DEFAULT_IGNORE`.
    opt_in: bool = False
    #: What ``extstream-lint --fix`` can do (ruff's fix applicability): ``"safe"`` (the
    #: meaning is kept; ``--fix`` applies it), ``"unsafe"`` (it may change behaviour; only with
    #: ``--unsafe-fixes``) or ``"none"`` (no one rewrite is right).
    autofix: str = "none"
    #: Why, and what the rewrite is: the rule page's "Fix" paragraph.
    autofix_why: str = ""

    def message(self, operation: str, subject: str) -> str:
        """The one-line lint message: code, operation, subject with origin, why and fix.

        ``subject`` names the stream with its preposition: "on ExternalStream 'ext'
        (created line 3)" or "while the current stream is ExternalStream 'ext' (...)".
        """
        if self.code in _CTOR_CODES:
            return f"{self.code} {operation}: {self.why_short}; {self.fix_short}"
        if self.deferred:
            return f"{self.code} {operation} {subject}: {self.why_short}; {self.fix_short}"
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

#: Rule examples are whole files (a test lints each alone): they start with their imports.
_EXT = "import torch\n\next = torch.npu.ExternalStream(handle)\n"
_EXT_NPU = "import torch\nimport torch_npu\n\next = torch.npu.ExternalStream(handle)\n"

#: XST203's shapes (issue 28): ``{backward}`` puts the backward lines after or inside the block.
_XST203_SHAPES = (
    "\n\ndef run_backward(loss):\n    loss.backward()\n\n\n"
    "class Trainer:\n"
    "    def step(self, batch, scaler):\n"
    "        with torch.npu.stream(ext):\n"
    "            out = self.model(**batch)\n"
    "            loss, aux = self.loss_fn(out.logits, batch['labels'])"
    "{backward}scaler.scale(loss + aux).backward()"
    "{backward}run_backward(out.loss.sum())\n"
)

_RULE_LIST: tuple[Rule, ...] = (
    Rule(
        code="XST000",
        category="INTERNAL",
        title="file could not be analysed",
        what="A file that mentions external streams but that extstream could not read or "
        "analyse: a syntax error, valid Python that libcst cannot parse, or a failure of "
        "extstream itself; the message says which. One finding per file, on line 1; the run "
        "goes on with the other files. Also, where a bound of the analysis cut what it "
        "follows on code a stream flows through (docs/limitations.md, Bounds), one finding "
        "at that line naming the bound, beside the file's other findings.",
        why="A file that cannot be analysed may hide any of the other findings.",
        why_short="the file could not be analysed",
        fixes=(
            "A syntax error (the message gives Python's line and column; flake8 reports it "
            "as `E999`): fix it.",
            "Valid Python that libcst cannot parse (the message says so): rewrite the "
            "construct as below, or exclude the file: `# noqa: XST000` on line 1, "
            "`per-file-ignores`, or `exclude`.",
            "A failure of extstream itself (the message says it is a bug): report it with the "
            "message, the output of `extstream-lint --version` and the smallest file that "
            "reproduces it.",
            "A bound the analysis stopped at (the message names it and says how to avoid it): "
            "simplify the construct, or silence it with `# noqa: XST000` on that line.",
        ),
        fix_short="fix the file, or exclude it: '# noqa: XST000' on line 1, per-file-ignores "
        "or exclude",
        autofix="none",
        autofix_why="A file that cannot be read or analysed needs a person: there is no one "
        "rewrite.",
        example="(x): int = 0  # valid Python that libcst 1.9 rejects",
        instead="x: int = 0",
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
        autofix="none",
        autofix_why="The right pointer is the owning library's handle, which only the code's "
        "author knows.",
        example="import torch\n\next = torch.npu.ExternalStream(0)",
        instead="import torch\n\next = torch.npu.ExternalStream(handle)  # an int from its owner",
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
        autofix="none",
        autofix_why="Dropping the argument changes which stream is made, or turns a "
        "`RuntimeError` into a stream without the priority or launch mode the author "
        "asked for: the owner must set them.",
        example="import torch\n\next = torch.npu.ExternalStream(handle, priority=-1)",
        instead="import torch\n\next = torch.npu.ExternalStream(handle, device=0)",
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
        autofix="unsafe",
        autofix_why="`ext.synchronize()` (or `torch.Stream.synchronize(ext)`, or the current "
        "stream's) becomes `torch.npu.synchronize()`: it covers the external stream "
        "but waits for the whole device, a change of behaviour and of speed. Offered "
        "only where `torch` is the imported module and the stream is a name or "
        "attribute (nothing with a side effect is dropped).",
        example=_EXT + "ext.synchronize()",
        instead=_EXT + "torch.npu.synchronize()",
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
        autofix="none",
        autofix_why="`query()` returns a value; only the owning library can answer it.",
        example=_EXT + "if ext.query():\n    ...",
        instead=_EXT + "torch.npu.synchronize()  # or the owning library's own query",
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
        autofix="none",
        autofix_why="Each way out (the owner's event API, a device-wide synchronize, a managed "
        "stream) changes the program differently.",
        example=_EXT + "done = ext.record_event()",
        instead=_EXT + "torch.npu.synchronize()",
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
        autofix="none",
        autofix_why="Each way out (the owner's API, a device-wide synchronize first) changes the "
        "program differently.",
        example=_EXT + "ext.wait_stream(torch.npu.current_stream())",
        instead=_EXT + "torch.npu.synchronize()\nwith torch.npu.stream(ext):\n    ...",
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
        autofix="none",
        autofix_why="Removing the call leaves the tensor's lifetime to the author: it must be "
        "kept alive by hand.",
        example=_EXT + "out.record_stream(ext)",
        instead=_EXT
        + "pending.append(out)  # keep it alive; release after torch.npu.synchronize()",
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
        autofix="unsafe",
        autofix_why="The `stream=` argument of `torch.npu.graph(...)` (keyword, or third "
        "positional) is removed: the capture then runs on its own capture stream, "
        "which works, but the captured work no longer runs under the external stream;"
        " replay the graph under `torch.npu.stream(ext)` yourself.",
        example=_EXT + "with torch.npu.graph(g, stream=ext):\n    y = model(x)",
        instead=_EXT + "with torch.npu.graph(g):\n    y = model(x)\n"
        "with torch.npu.stream(ext):\n    g.replay()",
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
        autofix="none",
        autofix_why="The task group needs a torch_npu-managed stream the author must create and "
        "order with the external work.",
        example=_EXT + "torch.npu.graph_task_group_begin(ext)",
        instead=_EXT + "s = torch.npu.Stream()\ntorch.npu.graph_task_group_begin(s)",
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
        autofix="none",
        autofix_why="The scope must move out of the external stream's block, which changes what "
        "runs under it.",
        example=_EXT + "with torch.npu.stream(ext):\n    torch.npu.super_kernel_scope_begin()",
        instead=_EXT + "with torch.npu.stream(torch.npu.Stream()):\n"
        "    torch.npu.super_kernel_scope_begin()",
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
        autofix="unsafe",
        autofix_why="`torch_npu.npu._launch_host_func(...)` becomes "
        "`torch_npu.npu._launch_host_func_pending(...)`, which torch_npu does not "
        "refuse; it is another private entry point, and whether its timing suits the "
        "callback is the author's call. Offered only for the attribute spelling (a "
        "bare imported name would need its import changed too).",
        example=_EXT_NPU + "torch_npu.npu._launch_host_func(ext, fn, data)",
        instead=_EXT_NPU + "torch_npu.npu._launch_host_func_pending(ext, fn, data)",
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
        autofix="none",
        autofix_why="Which managed stream to subscribe, or the owner's reports, is the author's "
        "choice.",
        example=_EXT_NPU + "torch_npu.npu._subscribe_report(ext)",
        instead=_EXT_NPU + "torch_npu.npu._subscribe_report(torch.npu.Stream())",
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
        autofix="none",
        autofix_why="The collective must move out of the external stream's block after a "
        "synchronize, which changes the program's order.",
        example="import torch\nimport torch.distributed as dist\n\n"
        "ext = torch.npu.ExternalStream(handle)\nwith torch.npu.stream(ext):\n"
        "    dist.all_reduce(t)",
        instead="import torch\nimport torch.distributed as dist\n\n"
        "ext = torch.npu.ExternalStream(handle)\nwith torch.npu.stream(ext):\n"
        "    y = model(x)\ntorch.npu.synchronize()\ndist.all_reduce(y)",
    ),
    Rule(
        code="XST112",
        category="CROSS_DEVICE_COPY",
        title="copy between two NPUs while an external stream is current",
        what="A device-to-device copy between two different NPUs while an external stream is "
        'current on one of them: `t.to("npu:1")` or `t.npu(1)` of a tensor on another NPU, and '
        "`dst.copy_(src)` with the two tensors on different NPUs. The current stream is per "
        "device: `torch.npu.stream(link)` with `link = ExternalStream(handle, device=1)` makes "
        "only npu:1's current stream external, so a copy between npu:0 and npu:2 is fine. "
        "Devices are read from strings, ints, `torch.device`, f-strings, `.npu(i)` and a "
        "module's `.to(device)` (and `cuda` after `transfer_to_npu`), and compared "
        "symbolically: `device` and `device + 1` differ, `devs[i]` and `devs[j]` may not. "
        'Only copies whose device indices are known to differ are flagged (`"npu"` without '
        "an index is the current device); when the external stream's own device is not "
        "visible (`ExternalStream(handle)` is on the current device), the copy is reported "
        'with "may be".',
        why="A copy between two NPUs orders the devices' current streams with an event: it "
        "records one on the source device's stream and makes the destination's wait on it "
        "(`NPUEvent::record` / `NPUEvent::block` in the copy kernel). torch_npu refuses both "
        "on an external stream, so the copy raises at once.",
        why_short="the copy records and waits events on both devices' current streams",
        fixes=(
            "Make the copy outside `torch.npu.stream(ext)`, after `torch.npu.synchronize()`.",
            "Make the copy while a torch_npu `torch.npu.Stream()` is current.",
        ),
        fix_short="make the copy outside torch.npu.stream(ext), after torch.npu.synchronize()",
        autofix="none",
        autofix_why="The copy must move out of the external stream's block after a synchronize, "
        "which changes the program's order.",
        example="import torch\n\nlink = torch.npu.ExternalStream(handle, device=1)\n"
        'x = torch.ones(4, device="npu:0")\nwith torch.npu.stream(link):\n'
        '    y = x.to("npu:1")  # npu:1\'s current stream is external\n\n\n'
        "def stage(handle, rank, h):\n"
        "    ext = torch.npu.ExternalStream(handle, device=rank)\n"
        "    with torch.npu.stream(ext):\n"
        "        return h.npu(rank).npu(rank + 1)",
        instead="import torch\n\nlink = torch.npu.ExternalStream(handle, device=1)\n"
        'x = torch.ones(4, device="npu:0")\nwith torch.npu.stream(link):\n'
        '    z = x.to("npu:2")  # neither device is npu:1\n'
        'torch.npu.synchronize()\ny = x.to("npu:1")',
    ),
    Rule(
        code="XST201",
        category="PINNED_COPY",
        title="non_blocking copy of pinned host memory while an external stream is current",
        what='`npu_t.to("cpu", non_blocking=True)` (torch_npu returns a pinned tensor), and '
        '`pinned.to("npu", non_blocking=True)`, `pinned.npu(non_blocking=True)`, '
        "`npu_t.copy_(pinned, non_blocking=True)` and `pinned.copy_(npu_t, non_blocking=True)` "
        "where the host tensor is visibly pinned (`.pin_memory()`, a factory called with "
        "`pin_memory=True`, a batch of `DataLoader(..., pin_memory=True)`), while an external "
        "stream is current; the same through `functools.partial(torch.zeros, "
        "pin_memory=True)` factories, helpers and other modules' objects that hold pinned "
        'buffers, `non_blocking=True` passed in a `**` dict, `.cuda(...)` and `"cuda"` '
        "devices after `transfer_to_npu`, and a helper that copies the tensor it is given "
        "(reported at the call that passes pinned memory). Not flagged: `.cpu()`, "
        "`non_blocking=False`, pageable host "
        "memory, copies between NPUs, copies while a torch_npu-managed stream is current. "
        "When extstream cannot see whether the host tensor is pinned, the copy is XST211.",
        why="The copy succeeds, but torch_npu records the current stream on the pinned host "
        "block. When the last reference to that tensor dies, the host allocator records an "
        "event on the external stream from the tensor's deleter, which torch_npu refuses "
        "(`NPUEvent::record`). The error escapes a destructor, so the process aborts with "
        "`std::terminate`: no traceback, no line number, often long after the copy. Pageable "
        "host memory is safe (torch_npu makes that copy synchronous), and so is "
        "`non_blocking=False`.",
        why_short="the copy succeeds, but the process aborts (std::terminate) when the pinned "
        "tensor is freed, because torch_npu recorded the external stream on its memory",
        fixes=(
            "Pass `non_blocking=False` (the copy then synchronizes the external stream, which "
            "torch_npu allows).",
            "Copy from or into pageable memory: drop `.pin_memory()` / `pin_memory=True`.",
            "Make the copy while a torch_npu `torch.npu.Stream()` is current and order it "
            "with the external work through `torch.npu.synchronize()`.",
        ),
        fix_short="use non_blocking=False, pageable memory, or a torch.npu.Stream() for the copy",
        autofix="safe",
        autofix_why="`non_blocking=True` (keyword, or the positional argument in its place) "
        "becomes `non_blocking=False`: the copy gives the same values and only waits "
        "for the external stream, which torch_npu allows. Nothing else on the line "
        "changes.",
        example="import functools\n\n" + _EXT + "pinned_zeros = functools.partial(torch.zeros, "
        'pin_memory=True)\nopts = {"non_blocking": True}\nwith torch.npu.stream(ext):\n'
        '    out = torch.ones(4, device="npu")\n    host = out.to("cpu", non_blocking=True)\n'
        '    dev = pinned_zeros(4).to("npu", **opts)',
        instead="import functools\n\n" + _EXT + "pinned_zeros = functools.partial(torch.zeros, "
        "pin_memory=True)\nwith torch.npu.stream(ext):\n"
        '    out = torch.ones(4, device="npu")\n    host = out.to("cpu")\n'
        '    dev = pinned_zeros(4).to("npu")',
        deferred=True,
    ),
    Rule(
        code="XST202",
        category="GRAPH_REPLAY",
        title="NPU graph replayed while an external stream is current (off by default)",
        what="`g.replay()` of a `torch.npu.NPUGraph`, and calls of a callable made by "
        "`torch.npu.make_graphed_callables`, while an external stream is current. Only "
        "graphs that consumed random numbers (dropout, `torch.rand`, ...) are affected, "
        "which extstream cannot see, so this code is off by default: select it with "
        "`--extend-select XST202` (flake8: `extend-select = XST202`).",
        why="Replaying a graph that used random numbers records its seed and offset tensors "
        "on the current stream (`NPUGeneratorCaptureState::setup_for_replay`, which "
        "bypasses the external-stream check). When the graph is reset or garbage-collected, "
        "freeing them records an event on the external stream from a destructor, and the "
        "process aborts with `std::terminate`.",
        why_short="if the graph used random numbers, the process aborts (std::terminate) when "
        "the graph is reset or freed, because its seed tensors were recorded on the external "
        "stream",
        fixes=(
            "If the graph uses no random numbers, nothing happens: mark the line `# noqa: XST202`.",
            "Replay graphs that use random numbers while a torch_npu `torch.npu.Stream()` is "
            "current, and hand the results over after `torch.npu.synchronize()`.",
        ),
        fix_short="replay it while a torch.npu.Stream() is current if the graph uses random "
        "numbers",
        autofix="none",
        autofix_why="Only the author knows whether the graph uses random numbers: mark the line "
        "`# noqa: XST202`, or replay it on a managed stream.",
        example=_EXT + "g = torch.npu.NPUGraph()\nwith torch.npu.stream(ext):\n    g.replay()",
        instead=_EXT + "g = torch.npu.NPUGraph()\nwith torch.npu.stream(torch.npu.Stream()):\n"
        "    g.replay()\ntorch.npu.synchronize()",
        deferred=True,
        opt_in=True,
    ),
    Rule(
        code="XST203",
        category="AUTOGRAD",
        title="backward across an external-stream boundary",
        what="`loss.backward()`, `torch.autograd.backward(loss)` and "
        "`torch.autograd.grad(loss, ...)` (a list of roots and `outputs=` included) on a value "
        "computed while an external stream was current, called while that stream is not "
        "current; and the reverse, a backward under an external stream of a value computed "
        "outside it. Every value computed while a stream is current carries it, however it "
        "was computed: a call of anything (`self.model(x)`, `self.loss_fn(logits, y)`), "
        "methods and operators (`loss.sum()`, `(a + b)`, `scaler.scale(loss)`), attributes and "
        "elements (`model(**batch).loss`, `loss, aux = model(x)`), a sum across loop "
        "iterations; it is followed through assignments, attributes, containers, helpers' "
        "returns and modules, and a helper that calls `.backward()` on its argument is judged "
        "where it is called. A forward and a backward both under the same external stream are "
        "not flagged.",
        why="The autograd engine runs each node on the stream its forward ran on and orders "
        "streams that differ with events (`LaunchRecordEventTask` / `LaunchWaitEventTask`), "
        "which torch_npu refuses on an external stream: `backward()` raises. A forward under "
        "the external stream with the backward outside it is worse: the engine has already "
        "recorded the external stream on the root gradient (a path that bypasses the check), "
        "and freeing that gradient later aborts the process with `std::terminate`.",
        why_short="the autograd engine records and waits events on the external stream, and "
        "freeing the gradient can abort the process",
        fixes=(
            "Run the forward and the backward under the same external stream: call "
            "`backward()` inside the `with torch.npu.stream(ext):` block that computed the "
            "loss.",
            "Run both on torch_npu-managed streams and hand the results to the external "
            "library after `torch.npu.synchronize()`.",
        ),
        fix_short="run the forward and the backward under the same stream",
        autofix="none",
        autofix_why="The backward must move into (or out of) the external stream's block, which "
        "changes where the work runs.",
        example=_EXT
        + "with torch.npu.stream(ext):\n    loss = model(x).sum()\nloss.backward()\n"
        + _XST203_SHAPES.format(backward="\n        "),
        instead=_EXT + "with torch.npu.stream(ext):\n    loss = model(x).sum()\n"
        "    loss.backward()\n" + _XST203_SHAPES.format(backward="\n            "),
        deferred=True,
    ),
    Rule(
        code="XST211",
        category="MAYBE_PINNED_COPY",
        title="non_blocking host copy of unknown pinnedness while an external stream is current "
        "(off by default)",
        what='`t.to("npu", non_blocking=True)`, `t.npu(non_blocking=True)` and '
        "`copy_(..., non_blocking=True)` between the host and the NPU while an external "
        "stream is current, where extstream cannot see whether the host tensor is pinned (a "
        "parameter, a batch of a loader it cannot follow). If it is pinned, this is XST201. "
        "Off by default: select it with `--extend-select XST211` (flake8: "
        "`extend-select = XST211`).",
        why="If the host tensor is pinned, the copy succeeds but the process aborts with "
        "`std::terminate` when the tensor is freed (see XST201); if it is pageable, the copy "
        "is synchronous and `non_blocking=True` buys nothing on an external stream.",
        why_short="if the host tensor is pinned, the process aborts (std::terminate) when it "
        "is freed, because torch_npu recorded the external stream on its memory",
        fixes=(
            "Pass `non_blocking=False`: on an external stream it costs nothing for pageable "
            "memory and avoids the abort for pinned memory.",
            "Make the copy while a torch_npu `torch.npu.Stream()` is current.",
        ),
        fix_short="use non_blocking=False, or a torch.npu.Stream() for the copy",
        autofix="safe",
        autofix_why="`non_blocking=True` becomes `non_blocking=False`, as for XST201: same "
        "values, and on an external stream a pageable copy was synchronous anyway.",
        example="import torch\n\n\ndef step(batch, handle):\n"
        "    ext = torch.npu.ExternalStream(handle)\n    with torch.npu.stream(ext):\n"
        '        return batch.to("npu", non_blocking=True)',
        instead="import torch\n\n\ndef step(batch, handle):\n"
        "    ext = torch.npu.ExternalStream(handle)\n    with torch.npu.stream(ext):\n"
        '        return batch.to("npu")',
        deferred=True,
        opt_in=True,
    ),
)

#: Every rule by code, in code order.
RULES: Mapping[str, Rule] = {rule.code: rule for rule in _RULE_LIST}
#: Codes reported only when selected (flake8's ``extend-default-ignore``; the CLI's default).
DEFAULT_IGNORE: tuple[str, ...] = tuple(rule.code for rule in _RULE_LIST if rule.opt_in)


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

# --- the surface table: one row per API the contract names -------------------------------------
#
# A row is either refused (``code`` set: the rule it breaks, how the stream reaches it, torch_npu's
# own text and the catalogue rows X01...) or followed (``code`` None: what the call yields, e.g.
# ``current_stream()`` or ``torch.npu.stream(s)``). The linter's effects table
# (``extstream_lint.analysis.semantics.effects``) and the guard's patch table
# (``extstream_guard.patches``) are both derived from :data:`APIS`; nothing else names these APIs.

#: How the stream reaches a refused call (``Api.supply``).
SELF = "self"  #: the receiver: ``ext.synchronize()``
ARG = "arg"  #: argument ``position`` (after the receiver for methods) or ``keyword``
ARG_OR_CURRENT = "arg_or_current"  #: the argument, else the current stream (``Event.record()``)
CURRENT = "current"  #: the calling thread's current stream; no stream argument at all
ATTR = "attr"  #: attribute ``keyword`` of the receiver (``graph.__enter__``: ``capture_stream``)
WAIT_STREAM = "wait_stream"  #: the argument is recorded on (``arg_code``), the receiver waits
POINTER = "pointer"  #: a constructor's ``stream_ptr`` (XST001 / XST002)

#: What a call yields (``Api.yields``), for the analysis.
EXTERNAL = "external_stream"  #: a new external stream (constructors, given a pointer)
CURRENT_STREAM = "current_stream"  #: the current stream object (it carries the external id)
MAKES_CURRENT = "makes_current"  #: makes argument ``position``/``keyword`` current
STREAM_CONTEXT = "stream_context"  #: a context manager making that argument current
CAPTURE_CONTEXT = "capture_context"  #: ``torch.npu.graph``: makes its capture stream current
EVENT = "event"  #: an event: ``record()`` / ``wait()`` default to the current stream
GRAPH = "graph"  #: an NPU graph: ``capture_begin()`` / ``capture_end()`` use the current stream
CAPTURING_GRAPH = "capturing_graph"  #: entering its ``with`` block captures (refused: ``code``)
WORK = "work"  #: a ``torch.distributed`` work handle: ``wait()`` blocks the current stream
FOREIGN = "foreign"  #: another backend's object whose methods share torch_npu's names

#: Receivers a refused method needs when the stream is not the receiver itself.
ANY = ""


@dataclass(frozen=True)
class Patch:
    """Where the runtime guard replaces the API with a checking wrapper."""

    #: Dotted paths of the class, or of every module namespace exporting the function.
    owners: tuple[str, ...]
    attr: str
    #: ``module:qualname`` of the Python definition in the torch_npu wheel (contract test).
    defined_in: str = ""
    #: Leading parameter list the wrapper relies on.
    params: tuple[str, ...] = ()
    #: The attribute may be absent (older torch / torch_npu); skipped silently then.
    optional: bool = False
    #: Applied only to the guard's own ``ExternalStream`` subclass (see ``guard.patches``).
    subclass_only: bool = False
    #: The wrapper kind when it is not the row's ``supply`` (collectives, constructors...).
    kind: str = ""
    #: torch_npu's text when this spelling reaches a different check than the row's.
    native: str = ""
    #: ``attr`` kind: the receiver's attribute holding the stream (``capture_stream``).
    attribute: str = ""


@dataclass(frozen=True)
class Api:
    """One API of the contract, by canonical qualified name (``Class.method`` for methods)."""

    name: str
    #: The rule a call breaks when the stream it gets is external; None: followed, not refused.
    code: str | None = None
    supply: str = ""
    position: int = 0
    keyword: str = ""
    yields: str = ""
    #: Called on an instance (``name`` is ``Class.method``); unbound calls pass it first.
    method: bool = False
    #: For methods refused on the current stream: the receiver the analysis must have seen.
    receiver: str = ANY
    #: Other spellings of the same object (canonical module aliases are applied first).
    aliases: tuple[str, ...] = ()
    #: torch_npu's own error text (what the guard reuses).
    native: str = ""
    #: Rows of the contract catalogue (spec section 2), X01...
    rows: tuple[str, ...] = ()
    #: ``wait_stream``: the code when the *argument* is external (it is recorded on first).
    arg_code: str | None = None
    arg_native: str = ""
    #: The guard's patch points; empty when it cannot see the call (then ``guard_blind``).
    guard: tuple[Patch, ...] = ()
    #: Why the guard cannot intercept this spelling (shown in the README's guard section).
    guard_blind: str = ""
    #: One offending line, using ``ext`` for the external stream, ``t`` for a tensor, ``g``
    #: for a graph, ``ev`` for an event and ``s`` for a managed stream; an example that does
    #: not name ``ext`` runs while ``ext`` is current. The table test lints it (and a twin
    #: where ``ext`` is a managed stream, which must stay silent).
    example: str = ""

    @property
    def attr(self) -> str:
        """The last component: the method or function name."""
        return self.name.rpartition(".")[2]

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


_RECORD = native_not_supported("NPUEvent::record")
_BLOCK = native_not_supported("NPUEvent::block")
_RECORD_TASK = native_not_supported("LaunchRecordEventTask")
_WAIT_TASK = native_not_supported("LaunchWaitEventTask")
_HCCL = native_not_supported("ProcessGroupHCCL::collective", current=True)
_NPU = "torch_npu.npu"
_S = "torch_npu.npu.streams"
_G = "torch_npu.npu.graphs"

#: Why the guard cannot see the generic ``torch.Stream`` / ``torch.Event`` calls.
_C_TYPE = (
    "`torch.Stream` and `torch.Event` are C++ types that refuse attribute assignment, and "
    "wrapping `torch.accelerator.current_stream()` or `torch.Event(...)` would change the type "
    "they return"
)


#: Why the guard cannot see ``torch.accelerator.Graph``.
_SHARED_GRAPH = (
    "`torch.accelerator.Graph` is torch's class for every backend and reaches `NPUGraph`'s C++ "
    "implementation without torch_npu's Python class; patching it would add a check to every "
    "device's capture"
)
#: Why the guard cannot see ``torch.ops`` operators.
_OPERATOR = (
    "`torch.ops` operators dispatch straight to C++, and torch's compiler and dispatcher rely "
    "on the operator objects' type, so they are not replaced"
)
#: Why the guard cannot see ``torch_npu._C`` functions.
_C_FUNCTION = (
    "functions of the C module `torch_npu._C`, called directly, bypass the Python functions "
    "the guard patches"
)


def _stream_method(
    attr: str,
    code: str,
    native: str,
    rows: tuple[str, ...],
    example: str,
    *,
    event: bool = False,
    yields: str = "",
) -> tuple[Api, Api]:
    """A torch_npu ``Stream`` method (patched on ``Stream`` and ``SyncLaunchStream``) and the
    generic ``torch.Stream`` one, which reaches the C++ check through ``NPUGuardImpl``."""
    patches = tuple(
        Patch(
            (f"{_NPU}.{cls}", f"{_S}.{cls}"),
            attr,
            defined_in=f"{_S}:{cls}.{attr}",
            params=("self", "event") if event else ("self",),
            subclass_only=event,
        )
        for cls in ("Stream", "SyncLaunchStream")
    )
    npu = Api(
        f"{_NPU}.Stream.{attr}",
        code,
        SELF,
        yields=yields,
        method=True,
        aliases=(f"{_NPU}.ExternalStream.{attr}", f"{_NPU}.SyncLaunchStream.{attr}"),
        native=native,
        rows=rows[:1],
        guard=patches,
        example=f"ext.{example}",
    )
    generic_native = {"XST103": _RECORD_TASK, "XST104": _WAIT_TASK}.get(code, native)
    generic = Api(
        f"torch.Stream.{attr}",
        code,
        SELF,
        yields=yields,
        method=True,
        native=generic_native,
        rows=rows[1:] or rows,
        guard_blind=_C_TYPE,
        example=f"torch.accelerator.current_stream().{example}",
    )
    return npu, generic


def _wait_stream() -> tuple[Api, Api]:
    patches = tuple(
        Patch(
            (f"{_NPU}.{cls}", f"{_S}.{cls}"),
            "wait_stream",
            defined_in=f"{_S}:{cls}.wait_stream",
            params=("self", "stream"),
        )
        for cls in ("Stream", "SyncLaunchStream")
    )
    npu = Api(
        f"{_NPU}.Stream.wait_stream",
        "XST104",
        WAIT_STREAM,
        0,
        "stream",
        method=True,
        aliases=(f"{_NPU}.ExternalStream.wait_stream", f"{_NPU}.SyncLaunchStream.wait_stream"),
        native=_BLOCK,
        rows=("X03", "X04"),
        arg_code="XST103",
        arg_native=_RECORD,
        guard=patches,
        example="ext.wait_stream(s)",
    )
    generic = Api(
        "torch.Stream.wait_stream",
        "XST104",
        WAIT_STREAM,
        0,
        "stream",
        method=True,
        native=_WAIT_TASK,
        rows=("X06", "X07"),
        arg_code="XST103",
        arg_native=_RECORD_TASK,
        guard_blind=_C_TYPE,
        example="torch.accelerator.current_stream().wait_stream(s)",
    )
    return npu, generic


def _event_method(
    attr: str, code: str, native: str, row: str, generic_native: str, generic_row: str
) -> tuple[Api, Api]:
    patches = tuple(
        Patch(
            (f"{_NPU}.{cls}", f"{_S}.{cls}"),
            attr,
            defined_in=f"{_S}:{cls}.{attr}",
            params=("self", "stream"),
        )
        for cls in ("Event", "ExternalEvent")
    )
    npu = Api(
        f"{_NPU}.Event.{attr}",
        code,
        ARG_OR_CURRENT,
        0,
        "stream",
        method=True,
        receiver=EVENT,
        aliases=(f"{_NPU}.ExternalEvent.{attr}",),
        native=native,
        rows=(row,),
        guard=patches,
        example=f"ev.{attr}(ext)",
    )
    generic = Api(
        f"torch.Event.{attr}",
        code,
        ARG_OR_CURRENT,
        0,
        "stream",
        method=True,
        receiver=EVENT,
        native=generic_native,
        rows=(generic_row,),
        guard_blind=_C_TYPE,
        # wait() returns early on an event never recorded (X07): the example records first
        example=(
            "ev = torch.Event('npu'); ev.record(); ev.wait(ext)"
            if attr == "wait"
            else f"torch.Event('npu').{attr}()"
        ),
    )
    return npu, generic


def _graph_task(attr: str, row: str, params: tuple[str, ...]) -> Api:
    example = f"torch.npu.{attr}(ext{', handle' if 'handle' in params else ''})"
    return Api(
        f"{_NPU}.{attr}",
        "XST107",
        ARG,
        0,
        "stream",
        aliases=(f"torch_npu._C._{attr}",),
        native=native_not_supported(attr),
        rows=(row,),
        guard=(Patch((_NPU, _G), attr, defined_in=f"{_G}:{attr}", params=params),),
        guard_blind=_C_FUNCTION,
        example=example,
    )


def _super_kernel(attr: str, row: str) -> Api:
    return Api(
        f"{_NPU}.{attr}",
        "XST108",
        CURRENT,
        aliases=(f"torch.ops.npu.{attr}", f"torch.ops.npu.{attr}.default"),
        native=native_not_supported(attr),
        rows=(row,),
        guard=(Patch((_NPU, _G), attr, defined_in=f"{_G}:{attr}", params=("scope_name",)),),
        guard_blind=_OPERATOR,
        example=f"torch.npu.{attr}()",
    )


def _private_hook(attr: str, code: str, native: str, row: str, params: tuple[str, ...]) -> Api:
    args = "ext" + ", fn, data" * (len(params) > 1)
    return Api(
        f"{_NPU}.{attr}",
        code,
        ARG,
        0,
        "op_stream",
        native=native,
        rows=(row,),
        guard=(Patch((_NPU,), attr, defined_in=f"{_NPU}:{attr}", params=params),),
        example=f"torch_npu.npu.{attr}({args})",
    )


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
_NPU_ONLY = ("all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven", "all_to_all_vc")
_C10D = "torch_npu.distributed.distributed_c10d"


def _collective(name: str) -> Api:
    kind = "group" if name in GROUP_ONLY_COLLECTIVES else "collective"
    patches = []
    if name not in _NPU_ONLY:
        patches.append(
            Patch(
                ("torch.distributed", "torch.distributed.distributed_c10d"),
                name,
                optional=True,
                kind=kind,
            )
        )
    private = _NPU_DIST_NAMES.get(name)
    if private is not None:
        where = f"{_C10D}:{private}"
        patches.append(Patch((_C10D,), private, defined_in=where, optional=True, kind=kind))
        if name in _NPU_ONLY:
            patches.append(
                Patch(("torch_npu.distributed",), name, defined_in=where, optional=True, kind=kind)
            )
    record = name in _EVENT_RECORD_COLLECTIVES
    return Api(
        f"torch.distributed.{name}",
        "XST111",
        CURRENT,
        yields=WORK,
        aliases=(f"torch_npu.distributed.{name}",),
        native=_RECORD if record else _HCCL,
        rows=("X03",) if record else ("X19", "X20"),
        guard=tuple(patches),
        example=f"torch.distributed.{name}(t)",
    )


def _work(attr: str) -> Api:
    return Api(
        f"torch.distributed.Work.{attr}",
        "XST111",
        CURRENT,
        method=True,
        receiver=WORK,
        native=_BLOCK,
        rows=("X04",),
        guard=(Patch((), attr, optional=True, kind="work"),),
        example=f"torch.distributed.all_reduce(t, async_op=True).{attr}()",
    )


def _capture(attr: str, row: str, params: tuple[str, ...]) -> Api:
    return Api(
        f"{_NPU}.NPUGraph.{attr}",
        "XST106",
        CURRENT,
        method=True,
        receiver=GRAPH,
        aliases=(f"torch.accelerator.Graph.{attr}",),
        native=native_not_supported(f"NPUGraph::{attr}"),
        rows=(row,),
        guard=(
            Patch(
                (f"{_G}.NPUGraph", f"{_NPU}.NPUGraph"),
                attr,
                defined_in=f"{_G}:NPUGraph.{attr}",
                params=params,
            ),
        ),
        guard_blind=_SHARED_GRAPH,
        example=f"g.{attr}()",
    )


def _ctor(
    cls: str, code: str, params: tuple[str, ...], kind: str, example: str, *, yields: str = EXTERNAL
) -> Api:
    return Api(
        f"{_NPU}.{cls}",
        code,
        POINTER,
        0,
        "stream_ptr",
        yields=yields,
        rows=("X23", "X24"),
        guard=(
            Patch(
                (f"{_NPU}.{cls}", f"{_S}.{cls}"),
                "__new__",
                defined_in=f"{_S}:{cls}.__new__",
                params=params,
                kind=kind,
            ),
        ),
        example=example,
    )


APIS: tuple[Api, ...] = (
    # --- constructors (XST001 / XST002) ---------------------------------------------------
    _ctor(
        "ExternalStream",
        "XST001",
        ("cls", "stream_ptr", "device"),
        "ctor_external",
        "torch.npu.ExternalStream(0)",
    ),
    _ctor(
        "Stream",
        "XST001",
        ("cls", "device", "priority"),
        "ctor_stream",
        "torch.npu.Stream(stream_ptr=0)",
    ),
    _ctor(
        "SyncLaunchStream",
        "XST002",
        ("cls", "device", "priority"),
        "ctor_sync",
        "torch.npu.SyncLaunchStream(stream_ptr=handle)",
        yields="",
    ),
    # --- stream methods (X01-X04, X06, X07) ----------------------------------------------
    *_stream_method("synchronize", "XST101", NATIVE_SYNCHRONIZE, ("X01",), "synchronize()"),
    *_stream_method("query", "XST102", NATIVE_QUERY, ("X02",), "query()"),
    *_stream_method(
        "record_event",
        "XST103",
        _RECORD,
        ("X03", "X06"),
        "record_event()",
        event=True,
        yields=EVENT,
    ),
    *_stream_method("wait_event", "XST104", _BLOCK, ("X04", "X07"), "wait_event(ev)", event=True),
    *_wait_stream(),
    # --- event methods (X03 / X04, X06 / X07), explicit stream or the current one ----------
    *_event_method("record", "XST103", _RECORD, "X03", _RECORD_TASK, "X06"),
    *_event_method("wait", "XST104", _BLOCK, "X04", _WAIT_TASK, "X07"),
    # --- record_stream (X05) -----------------------------------------------------------------
    Api(
        "torch.Tensor.record_stream",
        "XST105",
        ARG,
        0,
        "s",
        method=True,
        native=native_not_supported("record_stream"),
        rows=("X05",),
        guard=(Patch(("torch.Tensor",), "record_stream", params=("self", "s")),),
        example="t.record_stream(ext)",
    ),
    Api(
        "torch.ops.aten.record_stream",
        "XST105",
        ARG,
        1,
        "s",
        aliases=("torch.ops.aten.record_stream.default",),
        native=native_not_supported("record_stream"),
        rows=("X05",),
        guard_blind=_OPERATOR,
        example="torch.ops.aten.record_stream(t, ext)",
    ),
    # --- graphs (X08-X13, X17, X18) ----------------------------------------------------------
    _capture("capture_begin", "X17", ("self", "pool", "capture_error_mode")),
    _capture("capture_end", "X18", ("self",)),
    Api(
        f"{_NPU}.graph",
        "XST106",
        ARG,
        2,
        "stream",
        yields=CAPTURE_CONTEXT,
        native=native_not_supported("NPUGraph::capture_begin"),
        rows=("X17",),
        guard=(
            Patch(
                (f"{_G}.graph", f"{_NPU}.graph"),
                "__enter__",
                kind="attr",
                attribute="capture_stream",
                defined_in=f"{_G}:graph.__enter__",
                params=("self",),
            ),
        ),
        example="torch.npu.graph(g, stream=ext)",
    ),
    Api(
        "torch.accelerator.Graph",
        "XST106",
        CURRENT,
        yields=CAPTURING_GRAPH,
        native=native_not_supported("NPUGraph::capture_begin"),
        rows=("X17",),
        guard_blind=_SHARED_GRAPH,
        example="with torch.accelerator.Graph():\n    pass",
    ),
    _graph_task("graph_task_group_begin", "X08", ("stream",)),
    _graph_task("graph_task_group_end", "X09", ("stream",)),
    _graph_task("graph_task_update_begin", "X10", ("stream", "handle")),
    _graph_task("graph_task_update_end", "X11", ("stream",)),
    _super_kernel("super_kernel_scope_begin", "X12"),
    _super_kernel("super_kernel_scope_end", "X13"),
    # --- private hooks (X14-X16) -------------------------------------------------------------
    _private_hook(
        "_launch_host_func",
        "XST109",
        native_not_supported("launch_callback"),
        "X14",
        ("op_stream", "fn", "user_data"),
    ),
    _private_hook(
        "_subscribe_report",
        "XST110",
        native_not_supported("subscribe_report"),
        "X15",
        ("op_stream",),
    ),
    # _unsubscribe_report synchronizes the stream first (Graph.cpp:591): X01's text.
    _private_hook("_unsubscribe_report", "XST110", NATIVE_SYNCHRONIZE, "X16", ("op_stream",)),
    # --- torch.distributed / torch_npu.distributed (X19, X20, X03 via syncStreams) -----------
    *(_collective(name) for name in COLLECTIVES),
    _work("wait"),
    _work("synchronize"),
    # --- followed, not refused: where streams, events, graphs come from and go ---------------
    Api(f"{_NPU}.current_stream", yields=CURRENT_STREAM),
    Api("torch.accelerator.current_stream", yields=CURRENT_STREAM),
    Api(
        f"{_NPU}.set_stream",
        yields=MAKES_CURRENT,
        keyword="stream",
        aliases=("torch.accelerator.set_stream",),
    ),
    Api(
        f"{_NPU}.stream",
        yields=STREAM_CONTEXT,
        keyword="stream",
        aliases=(f"{_NPU}.StreamContext",),
    ),
    Api(f"{_NPU}.Event", yields=EVENT, aliases=(f"{_NPU}.ExternalEvent", "torch.Event")),
    Api(f"{_NPU}.NPUGraph", yields=GRAPH),
    Api("torch.cuda.CUDAGraph", yields=FOREIGN, aliases=("torch.cuda.graphs.CUDAGraph",)),
)

#: Every refused row, by code then table order.
REFUSED: tuple[Api, ...] = tuple(api for api in APIS if api.code is not None)

#: Keywords that make torch_npu ignore ``stream_ptr`` (the ``unpack3`` branch, spec 4.1).
ID_KEYWORDS: tuple[str, ...] = ("stream_id", "device_index", "device_type")
#: The class whose instances wrap an external ``aclrtStream`` (``isinstance`` narrowing).
EXTERNAL_STREAM_CLASS = f"{_NPU}.ExternalStream"
#: ``torch.npu.graph.default_capture_stream = ext`` makes ``torch.npu.graph(g)`` capture on ext.
DEFAULT_CAPTURE_STREAM = f"{_NPU}.graph.default_capture_stream"
#: Importing this module copies torch_npu.npu's names onto torch.cuda (spec section 3).
TRANSFER_TO_NPU = "torch_npu.contrib.transfer_to_npu"

#: Module aliases, mapped onto canonical names before any lookup: ``torch.npu`` *is*
#: ``torch_npu.npu`` at run time and the submodules re-export into it (spec section 3).
MODULE_ALIASES: tuple[tuple[str, str], ...] = (
    ("torch.npu.streams", _NPU),
    ("torch.npu.graphs", _NPU),
    ("torch.npu.utils", _NPU),
    ("torch.npu", _NPU),
    (_S, _NPU),
    (_G, _NPU),
    ("torch_npu.npu.utils", _NPU),
    ("torch.distributed.distributed_c10d", "torch.distributed"),
    ("torch_npu.distributed.distributed_c10d", "torch_npu.distributed"),
)
#: Names that mean the torch modules even where the file never imports them: ``import
#: torch`` loads torch_npu by itself, and snippets often omit their imports.
IMPLICIT_MODULES: tuple[str, ...] = ("torch", "torch_npu")
#: After ``transfer_to_npu``, ``torch.cuda.X`` is ``torch_npu.npu.X``, except these renames.
CUDA_RENAMES: Mapping[str, str] = {
    f"{_NPU}.CUDAGraph": f"{_NPU}.NPUGraph",
    f"{_NPU}.graphs.CUDAGraph": f"{_NPU}.NPUGraph",
}

# --- the hazard table: calls torch_npu accepts that fail later, or only in some states --------
#
# Spec section 2.6 and hazards.md. These rows are not refusals (torch_npu raises nothing at the
# call, or raises only when tensors sit on other streams or devices), so they are judged from
# what the analysis knows about the tensors involved, not from the stream argument alone.

#: ``Hazard.kind``: how the analysis judges a call.
COPY_TO = "copy_to"  #: ``t.to(device | tensor, ..., non_blocking=...)``: receiver -> device
COPY_DEVICE = "copy_device"  #: ``t.npu(device, non_blocking)``: receiver -> an NPU
COPY_INTO = "copy_into"  #: ``dst.copy_(src, non_blocking)``: argument -> receiver
BACKWARD = "backward"  #: autograd from the roots (``Hazard.position``/``keyword``, or self)
REPLAY = "replay"  #: replaying a captured graph on the current stream

#: The keyword every copy spells its flag with.
NON_BLOCKING = "non_blocking"
#: ``Tensor.pin_memory()``, and the keyword of factories (and ``DataLoader``) that pin.
PIN_MEMORY = "pin_memory"
#: Loaders whose batches are pinned when built with ``pin_memory=True``.
PINNING_LOADERS: tuple[str, ...] = (
    "torch.utils.data.DataLoader",
    "torch.utils.data.dataloader.DataLoader",
)
#: ``make_graphed_callables`` returns callables that replay a graph when called (XST202).
GRAPHED_CALLABLES = f"{_NPU}.make_graphed_callables"
#: Device type names: the host, and the NPU (``cuda`` is the NPU after ``transfer_to_npu``).
HOST_DEVICE = "cpu"
NPU_DEVICES: tuple[str, ...] = ("npu",)
#: ``torch.device(type, index)``: the analysis reads it as the string ``"type:index"``.
DEVICE_CLASS = "torch.device"
#: Functions under this prefix compute tensors (unless the tables above say otherwise).
TENSOR_MODULE = "torch."
#: ``torch`` factories whose result is on the host unless ``device=`` says otherwise.
HOST_FACTORIES: tuple[str, ...] = (
    "empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "arange",
    "linspace", "logspace", "eye", "tensor", "empty_strided",
)  # fmt: skip
#: ``torch`` factories whose result is where their first argument is (unless ``device=``).
LIKE_FACTORIES: tuple[str, ...] = (
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
    "randint_like",
)  # fmt: skip
#: Tensor methods whose result shares the receiver's memory: a view, or the tensor itself.
TENSOR_VIEWS: tuple[str, ...] = (
    "view", "view_as", "reshape", "reshape_as", "contiguous", "detach", "flatten", "narrow",
    "select", "squeeze", "unsqueeze", "permute", "transpose", "t", "expand", "expand_as",
    "as_strided", "untyped_storage", "__getitem__", "requires_grad_", "share_memory_", "copy_",
)  # fmt: skip


@dataclass(frozen=True)
class Hazard:
    """One call of the hazard surface, by canonical qualified name."""

    name: str
    kind: str
    #: The codes this call can break, best-known first.
    codes: tuple[str, ...]
    method: bool = True
    aliases: tuple[str, ...] = ()
    #: The tensor argument (copy source, autograd roots) after the receiver: position/keyword.
    position: int = -1
    keyword: str = ""
    #: Position of ``non_blocking`` when passed positionally (after the receiver); -1: none.
    flag_position: int = -1
    #: Where the spec and hazards.md describe it.
    rows: tuple[str, ...] = ()
    #: One offending line (``t``, ``pinned``, ``dst``, ``g``, ``loss``), run while ``ext`` is
    #: current.
    example: str = ""

    @property
    def attr(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


_COPY_CODES = ("XST201", "XST211", "XST112")

HAZARDS: tuple[Hazard, ...] = (
    Hazard(
        "torch.Tensor.to",
        COPY_TO,
        _COPY_CODES,
        position=0,
        keyword="device",
        rows=("2.6-1", "hazard 1"),
        example='t.to("cpu", non_blocking=True)',
    ),
    Hazard(
        "torch.Tensor.npu",
        COPY_DEVICE,
        _COPY_CODES,
        # ``cuda`` is the NPU only after ``transfer_to_npu`` (the analysis checks that).
        aliases=("torch.Tensor.cuda",),
        position=0,
        keyword="device",
        flag_position=1,
        rows=("2.6-1", "hazard 1"),
        example="pinned.npu(non_blocking=True)",
    ),
    Hazard(
        "torch.Tensor.copy_",
        COPY_INTO,
        _COPY_CODES,
        position=0,
        # torch's Python binding names it ``other`` (``UntypedStorage.copy_``'s is ``src``).
        keyword="other",
        flag_position=1,
        rows=("2.6-1", "hazard 1"),
        example="t.copy_(pinned, non_blocking=True)",
    ),
    Hazard(
        "torch.UntypedStorage.copy_",
        COPY_INTO,
        _COPY_CODES,
        position=0,
        keyword="src",
        flag_position=1,
        rows=("2.6-1", "hazard 1"),
        example="t.untyped_storage().copy_(pinned.untyped_storage(), non_blocking=True)",
    ),
    Hazard(
        "torch.Tensor.backward",
        BACKWARD,
        ("XST203",),
        rows=("2.6-3", "hazard 3"),
        example="loss.backward()",
    ),
    Hazard(
        "torch.autograd.backward",
        BACKWARD,
        ("XST203",),
        method=False,
        position=0,
        keyword="tensors",
        rows=("2.6-3", "hazard 3"),
        example="torch.autograd.backward(loss)",
    ),
    Hazard(
        "torch.autograd.grad",
        BACKWARD,
        ("XST203",),
        method=False,
        position=0,
        keyword="outputs",
        rows=("2.6-3", "hazard 3"),
        example="torch.autograd.grad(loss, params)",
    ),
    Hazard(
        f"{_NPU}.NPUGraph.replay",
        REPLAY,
        ("XST202",),
        aliases=("torch.accelerator.Graph.replay",),
        rows=("2.6-2", "hazard 2"),
        example="g.replay()",
    ),
)
