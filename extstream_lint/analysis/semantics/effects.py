"""What a resolved torch / torch_npu call does, derived from the contract's surface table.

The interpreter (:mod:`.interpreter`) knows Python: it evaluates arguments, resolves callees to
canonical names and tracks the current stream through control flow. This module knows torch:
given a call whose callee is resolved, it says which rules the call breaks (as :class:`Issue`)
and what it yields (a stream, an event, a graph, a work handle, a context making a stream
current). Every lookup here is built from :data:`extstream_lint.contract.APIS`; no API name is
written in this module or in the interpreter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ... import contract as c
from ...contract import Api
from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.handles import CapturingGraph, CVoidP, Event, Foreign, Graph, ManagedStream, Work
from ..abstract.values import Instance, Seq, StreamCtx, Tensor, Value
from .copies import argument_matches
from .devices import stream_device
from .flowmodels import HANDLE_LISTS
from .hazards import function_hazards, method_hazards
from .sites import Arg, CallSite, Issue, Outcome

__all__ = [
    "call_effects",
    "canonical",
    "enables_transfer_to_npu",
    "enter_effects",
    "handle_matches",
    "is_external_class",
    "method_effects",
    "unbound_issues",
]

# --- names ---------------------------------------------------------------------------------------


def canonical(qualname: str, transfer_to_npu: bool = False) -> str:
    """Map an alias onto the canonical qualified name used by the surface table."""
    if transfer_to_npu and (qualname == "torch.cuda" or qualname.startswith("torch.cuda.")):
        qualname = _NPU + qualname[len("torch.cuda") :]
    if transfer_to_npu:  # ``torch.cuda`` resolved first, then ``.CUDAGraph`` on it
        qualname = c.CUDA_RENAMES.get(qualname, qualname)
    for prefix, target in c.MODULE_ALIASES:
        if qualname == prefix or (qualname.startswith(prefix) and qualname[len(prefix)] == "."):
            return target + qualname[len(prefix) :]
    return qualname


_NPU = c.EXTERNAL_STREAM_CLASS.rpartition(".")[0]


def is_external_class(qualname: str) -> bool:
    """``isinstance(x, <qualname>)`` proves ``x`` external."""
    return qualname == c.EXTERNAL_STREAM_CLASS


def enables_transfer_to_npu(module: str) -> bool:
    """Importing ``module`` makes ``torch.cuda`` names torch_npu's."""
    return module == c.TRANSFER_TO_NPU or module.startswith(c.TRANSFER_TO_NPU + ".")


#: The process-wide default capture stream of ``torch.npu.graph`` (an assignable attribute).
DEFAULT_CAPTURE_STREAM = c.DEFAULT_CAPTURE_STREAM

# --- lookups derived from the table ----------------------------------------------------------

#: Refused methods by method name, in table order.
_METHODS: dict[str, list[Api]] = {}
#: Method rows by every qualified spelling (unbound calls: ``torch.Stream.synchronize(ext)``).
_UNBOUND: dict[str, Api] = {}
#: Function and class rows by every spelling.
_FUNCTIONS: dict[str, Api] = {}
for _api in c.APIS:
    if _api.method:
        if _api.code is not None:
            _METHODS.setdefault(_api.attr, []).append(_api)
        for _name in _api.spellings:
            _UNBOUND.setdefault(_name, _api)
    else:
        for _name in _api.spellings:
            _FUNCTIONS.setdefault(_name, _api)
#: The classes whose methods the table judges (``torch.Tensor``, ``torch.npu.Stream``...):
#: ``C.m(obj, *args)`` is ``obj.m(*args)`` (:func:`unbound_call`).
_METHOD_CLASSES = frozenset(
    name.rpartition(".")[0] for row in (*c.APIS, *c.HAZARDS) if row.method for name in row.spellings
)
#: Refused method names: one read off a stream or handle is kept as a value that can be called.
REFUSED_METHODS = frozenset(_METHODS)
_CAPTURING: Mapping[str, Api] = {a.yields: a for a in c.REFUSED if a.yields == c.CAPTURING_GRAPH}
#: What ``from <module> import *`` binds that the table cares about.
STAR_EXPORTS: dict[str, tuple[str, ...]] = {}
for _name in _FUNCTIONS:
    _module, _, _attr = _name.rpartition(".")
    if _module in (_NPU, "torch.distributed") and not _attr.startswith("_"):
        STAR_EXPORTS.setdefault(_module, ())
        STAR_EXPORTS[_module] += (_attr,)
_C_VOID_P = "ctypes.c_void_p"
#: Names that mean the torch modules even where the file never imports them.
IMPLICIT_MODULES = c.IMPLICIT_MODULES


# --- method calls ------------------------------------------------------------------------------


def _ext(arg: Arg | None) -> ExtStream | None:
    if arg is not None and isinstance(arg.value, ExtStream):
        return arg.value
    return None


def _absent_or_none(arg: Arg | None) -> bool:
    return arg is None or (isinstance(arg.value, Const) and arg.value.value is None)


def _symbolic(value: Value) -> bool:
    """A summarised function's parameter: whatever its caller passes."""
    return isinstance(value, ExtStream) and value.param is not None


def _receiver_matches(api: Api, receiver: Value) -> bool:
    return handle_matches(api.receiver, receiver)


#: A guard kind of our own (not the contract's): the receiver is not an object of a project
#: class, whose own ``wait()``/``record()`` is no torch method (its body says what it does).
NOT_OBJECT = "not an object of the project"


def handle_matches(kind: str, receiver: Value) -> bool:
    """A receiver of a method whose table row says ``receiver=kind`` (any if blank), or an
    argument of a helper's copy (:func:`.copies.argument_matches`)."""
    if kind == NOT_OBJECT:
        return not isinstance(receiver, Instance)
    copied = argument_matches(kind, receiver)
    if copied is not None:
        return copied
    if kind == c.GRAPH:  # an unknown receiver may be a graph too
        if isinstance(receiver, Tensor):  # what is known of it is that it may be a tensor
            return not receiver.place
        return receiver is None or isinstance(receiver, (Graph, CapturingGraph))
    if kind == c.WORK:
        return isinstance(receiver, Work)
    if kind == c.EVENT:
        return isinstance(receiver, Event)
    if kind == c.CAPTURING_GRAPH:
        return isinstance(receiver, CapturingGraph)
    return True


def _method_issues(
    api: Api,
    site: CallSite,
    receiver: Value,
    receiver_text: str | None,
    current: ExtStream | None,
) -> list[Issue]:
    method = api.attr
    op = f"{method}()"
    code = api.code
    assert code is not None
    supply = api.supply
    if supply == c.SELF:
        if isinstance(receiver, ExtStream):
            return [Issue(code, op, receiver, receiver_text)]
        return []
    if supply == c.WAIT_STREAM:
        other = site.arg(api.position, api.keyword)
        stream = _ext(other)
        issues = []
        if stream is not None and api.arg_code is not None:  # other.record_event() runs first
            issues.append(Issue(api.arg_code, op, stream, other.text if other else None))
            if stream.param is None:
                return issues
        if isinstance(receiver, ExtStream):
            # The argument is a parameter: a managed one lets the receiver's wait happen.
            unless = stream.param if stream is not None else None
            issues.append(Issue(code, op, receiver, receiver_text, unless=unless))
        return issues
    if supply in (c.ARG, c.ARG_OR_CURRENT):
        arg = site.arg(api.position, api.keyword)
        stream = _ext(arg)
        if stream is not None:
            # ``h.wait(s)`` on a parameter ``h``: not when the caller's ``h`` is a project
            # object (its class's ``wait`` is followed as a call of its own, calls.py)
            mine = (receiver.param, NOT_OBJECT) if _symbolic(receiver) else None  # type: ignore[union-attr]
            return [Issue(code, op, stream, arg.text if arg else None, guard=mine)]
        guard = _handle_guard(api, receiver, current)
        if (
            supply == c.ARG_OR_CURRENT
            and current is not None
            and (guard is not None or _receiver_matches(api, receiver))
            and _absent_or_none(arg)
            and not site.double_star
        ):
            return [Issue(code, f"{method}() with no stream", current, None, True, guard=guard)]
        return []
    guard = _handle_guard(api, receiver, current)
    if supply == c.CURRENT and current is not None and (guard or _receiver_matches(api, receiver)):
        if api.receiver == c.WORK:
            op = f"Work.{method}()"
        return [Issue(code, op, current, None, True, guard=guard)]
    return []


def _handle_guard(
    api: Api, receiver: Value, current: ExtStream | None
) -> tuple[object, str] | None:
    """A handle method (event, graph, work) called on a parameter, on the caller's current
    stream: a sink of the summarised function that applies when the caller passes a handle.
    Only with the caller's current stream: a parameter that may be anything, used while
    the helper itself made an external stream current, is not reported (it may be a stream).
    """
    if api.receiver and _symbolic(receiver) and _symbolic(current):
        assert isinstance(receiver, ExtStream)
        return receiver.param, api.receiver
    return None


def method_effects(
    site: CallSite,
    method: str,
    receiver: Value,
    receiver_text: str | None,
    current: ExtStream | None,
) -> tuple[list[Issue], Value]:
    """``receiver.method(...)`` where the receiver is not a module or class: the issues (the
    first refused row of that method name that applies) and the value it yields, if known."""
    yielded: Value = None
    found: list[Issue] = []
    for api in _METHODS.get(method, ()):
        issues = _method_issues(api, site, receiver, receiver_text, current)
        if api.yields == c.EVENT and isinstance(receiver, ExtStream):
            yielded = Event()
        if issues and not _symbolic(receiver):
            return issues, yielded
        # A parameter may be a stream or any handle: each reading is a sink of its own
        # (``w.synchronize()``: the stream's XST101, or a work's XST111 on the current stream).
        for issue in issues:
            kind = issue.guard[1] if issue.guard else None
            if not any(f.code == issue.code and (f.guard and f.guard[1]) == kind for f in found):
                found.append(issue)
    if yielded is None:
        hazards, yielded = method_hazards(site, method, receiver, receiver_text, current)
        found.extend(hazards)
    return found, yielded


# --- function and class calls ------------------------------------------------------------------


def call_effects(
    site: CallSite, qualname: str, current: ExtStream | None, default_capture: Value
) -> Outcome:
    """A call of a module-level function, class or unbound method, by canonical name."""
    api = _FUNCTIONS.get(qualname)
    if api is None:
        dispatched = unbound_call(site, qualname, current)
        if dispatched is not None:
            return Outcome(dispatched[0], value=dispatched[1])
        if qualname == _C_VOID_P:
            return Outcome(value=CVoidP())
        hazard = function_hazards(site, qualname, current)
        return Outcome() if hazard is None else Outcome(*hazard)
    if api.supply == c.POINTER:
        return _constructor(site, api)
    outcome = Outcome(_function_issues(site, api, current, default_capture))
    outcome.value = _yielded(site, api, current, default_capture, outcome)
    if api.name in HANDLE_LISTS:  # batch_isend_irecv: a list of works (flowmodels.py)
        outcome.value = Seq((outcome.value,))
    if qualname == GENERIC_EVENT:
        outcome.value = Event(generic_origin=site.node)
    return outcome


#: ``torch.Event``: the device-generic event (``NPUGuardImpl``), not torch_npu's own.
GENERIC_EVENT = "torch.Event"


def unbound_issues(site: CallSite, qualname: str) -> list[Issue]:
    """A method named by its class and called as a value (``partial(f, ext)()``,
    ``map(f, streams)``): its issues, judged with no stream current; nothing for any other
    name."""
    dispatched = unbound_call(site, qualname, None)
    return [] if dispatched is None else dispatched[0]


def class_of(value: Value) -> Value:
    """``type(value)`` for a value known to be an external stream (the class it was made
    from, whose methods the table judges: ``type(ext).synchronize(ext)``); ``None`` for
    anything else, a parameter included (whatever the caller passes)."""
    if not isinstance(value, ExtStream) or not value.must or value.param is not None:
        return None
    made_by = c.EXTERNAL_STREAM_CLASS if value.noun == "ExternalStream" else f"{_NPU}.Stream"
    return Ref(made_by)


def unbound_call(
    site: CallSite, qualname: str, current: ExtStream | None
) -> tuple[list[Issue], Value] | None:
    """``C.m(obj, *args)``: Python's dispatch makes it ``obj.m(*args)`` when ``obj`` is an
    instance of ``C`` (or of a subclass), so the method's rules judge it, refusals and
    hazards alike (``torch.Tensor.to(out, "cpu", non_blocking=True)``,
    ``torch.npu.Stream.synchronize(ext)``). ``None`` when ``C`` is not a class whose methods
    the table judges. An ``obj`` of another class is judged as that object's method would
    be: the rules look at what the receiver is (a CUDA stream, a managed stream: nothing)."""
    owner, _, method = qualname.rpartition(".")
    if owner not in _METHOD_CLASSES:
        return None
    if not site.positional or site.star_at == 0:
        return [], None
    receiver = site.positional[0]
    rest = CallSite(
        site.node,
        site.callee_text,
        site.positional[1:],
        site.keywords,
        None if site.star_at is None else site.star_at - 1,
        site.double_star,
        site.spread,
        site.kw_spread,
        site.cuda_is_npu,
        site.skipped + 1,
    )
    issues, yielded = method_effects(rest, method, receiver.value, receiver.text, current)
    op = f"{site.callee_text}()"
    return [replace(i, operation=op) for i in issues], yielded


def _function_issues(
    site: CallSite, api: Api, current: ExtStream | None, default_capture: Value
) -> list[Issue]:
    if api.code is None:
        return []
    op = f"{site.callee_text}()"
    if api.supply == c.ARG:
        arg = site.arg(api.position, api.keyword)
        stream = _ext(arg)
        if stream is not None:
            return [Issue(api.code, op, stream, arg.text if arg else None)]
        if (
            api.yields == c.CAPTURE_CONTEXT
            and arg is None
            and isinstance(default_capture, ExtStream)
        ):
            return [Issue(api.code, op, default_capture, DEFAULT_CAPTURE_STREAM)]
        return []
    if api.supply == c.CURRENT and api.yields != c.CAPTURING_GRAPH and current is not None:
        return [Issue(api.code, op, current, None, True)]
    return []


def _yielded(
    site: CallSite, api: Api, current: ExtStream | None, default_capture: Value, out: Outcome
) -> Value:
    yields = api.yields
    if yields == c.CAPTURE_CONTEXT:
        # Entering it makes its capture stream current (spec 2.2): the stream= argument,
        # else graph.default_capture_stream, else a managed pool stream.
        arg = site.arg(api.position, api.keyword)
        if arg is not None and not (isinstance(arg.value, Const) and arg.value.value is None):
            return StreamCtx(arg.value, arg.text or "")
        default = default_capture if isinstance(default_capture, ExtStream) else None
        return StreamCtx(default, DEFAULT_CAPTURE_STREAM)
    if yields == c.CURRENT_STREAM:
        return current
    if yields == c.MAKES_CURRENT:
        out.makes_current = site.arg(api.position, api.keyword)
        return None
    if yields == c.STREAM_CONTEXT:
        arg = site.arg(api.position, api.keyword)
        return None if arg is None else StreamCtx(arg.value, arg.text or "")
    return _SIMPLE_YIELDS.get(yields)


_SIMPLE_YIELDS: Mapping[str, Value] = {
    c.EVENT: Event(),
    c.GRAPH: Graph(),
    c.CAPTURING_GRAPH: CapturingGraph(),
    c.WORK: Work(),
    c.FOREIGN: Foreign(),
}


def enter_effects(value: Value, current: ExtStream | None) -> list[Issue]:
    """Entering ``with value:`` (``torch.accelerator.Graph()`` captures on the current stream)."""
    guard = None
    if _symbolic(value) and _symbolic(current):  # ``with g:`` on a parameter: if a graph
        assert isinstance(value, ExtStream)
        guard = (value.param, c.CAPTURING_GRAPH)
    if (guard or isinstance(value, CapturingGraph)) and current is not None:
        api = _CAPTURING[c.CAPTURING_GRAPH]
        assert api.code is not None
        return [Issue(api.code, f"{api.name}() capture", current, None, True, guard=guard)]
    return []


# --- constructors ----------------------------------------------------------------------------


def _describe_pointer(value: Value) -> str | None:
    """Why a pointer argument is wrong, or ``None`` if it may be a real handle."""
    if isinstance(value, CVoidP):
        return "a ctypes.c_void_p object (TypeError)"
    if not isinstance(value, Const):
        return None
    v = value.value
    if v is None:
        return "None (TypeError)"
    if v is False or (v == 0 and isinstance(v, int)):
        return f"the null pointer {v!r}"
    if v is True:
        return "True (taken as the garbage pointer 1)"
    if isinstance(v, int):
        if v < 0:
            return f"the negative pointer {v} (wrapped into garbage)"
        if v >= 2**64:
            return "a pointer wider than 64 bits (wrapped into garbage)"
        return None
    return f"a {type(v).__name__} literal (TypeError)"


def _is_null(value: Value) -> bool:
    return isinstance(value, Const) and (value.value is None or value.value == 0)


def _constructor(site: CallSite, api: Api) -> Outcome:
    """XST001/XST002 for stream constructors, and the external stream they yield."""
    issues, external = _constructor_issues(site, api)
    out = Outcome(issues)
    if not external and not is_external_class(api.name) and api.keyword not in site.keywords:
        # torch.npu.Stream(device=1): a managed stream, on a device worth knowing where the
        # current stream is kept per device (:mod:`.copies`)
        device = stream_device(site, 0, site.cuda_is_npu)
        if device is not None:
            out.value = ManagedStream(next(iter(device)))
    if external:
        node = site.node
        # ExternalStream(stream_ptr, device) / Stream(device, priority, stream_ptr=...)
        external_class = is_external_class(api.name)
        device = stream_device(site, 1 if external_class else 0, site.cuda_is_npu)
        if external_class:
            out.value = ExtStream(True, "created", node, device=device)
        else:
            out.value = ExtStream(
                True, "created with stream_ptr", node, "external stream", device=device
            )
    return out


def _constructor_issues(site: CallSite, api: Api) -> tuple[list[Issue], bool]:
    name = site.callee_text
    issues: list[Issue] = []
    if api.yields != c.EXTERNAL:  # SyncLaunchStream: is_sync_launch=1 always
        ptr = site.keywords.get(api.keyword)
        if ptr is not None and not _is_null(ptr.value):
            issues.append(Issue("XST002", f"{name}(stream_ptr=...) always sets is_sync_launch=1"))
        return issues, False
    positional = is_external_class(api.name)
    if positional:  # ExternalStream(stream_ptr, device=None, **kwargs)
        ptr = site.arg(api.position, api.keyword)
        if len(site.positional) > 2 and site.star_at is None:
            issues.append(
                Issue(
                    "XST002",
                    f"{name}() given a third positional argument (the second is device, "
                    "not priority)",
                )
            )
        priority = site.keywords.get("priority")
    else:  # torch.npu.Stream(device=None, priority=0, **kwargs)
        ptr = site.keywords.get(api.keyword)
        if ptr is None:
            return issues, False
        priority = site.arg(1, "priority")
    if ptr is None:
        return issues, positional and site.star_at is None
    problem = _describe_pointer(ptr.value)
    if problem is not None:
        issues.append(Issue("XST001", f"{name}() given {problem} as stream_ptr"))
        return issues, False
    for keyword, arg in (
        ("priority", priority),
        ("is_sync_launch", site.keywords.get("is_sync_launch")),
    ):
        if arg is not None and not _is_null(arg.value):
            issues.append(Issue("XST002", f"{name}() given {keyword}= for an external stream"))
    ignored = [
        k for k in c.ID_KEYWORDS if k in site.keywords and not _is_null(site.keywords[k].value)
    ]
    for keyword in ignored:
        issues.append(
            Issue("XST002", f"{name}() given {keyword}=, which makes torch_npu ignore stream_ptr")
        )
    return issues, not ignored
