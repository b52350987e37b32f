"""Wrapper factories, one per ``kind`` of :mod:`extstream_guard.patches`.

The hot path (a call on an ordinary stream) is one attribute read (``stream_id``) and a bit test
inside a try block (zero-cost in CPython 3.11+); ``device_type`` is read only when bit 30 is set.
No allocation, no lock, no mode lookup: only a detected external stream reaches :func:`report`,
which asks the wrapper's :class:`~extstream_guard._state.Session` whether to raise, warn or (for
a wrapper whose installation is over, or in mode ``off``) do nothing.

Every wrapper calls the very callable it wraps, with the caller's arguments: the guard never
replays what torch_npu does, so decorators, spies and later patches of any callee run exactly
as they would without it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import native_not_supported

from . import _patching, _state
from ._frames import spelled, user_stacklevel
from .ctor import Problem, check_external, check_stream_ptr_kwargs
from .errors import ExternalStreamError, ExternalStreamWarning, build_message
from .patches import WORK_POINTS, Point
from .predicate import EXTERNAL_MARK, is_external

__all__ = ["make_wrapper", "report", "track_work"]

Session = _state.Session


def _fail(
    session: Session, message: str, code: str, operation: str, device: Any, stream_id: Any
) -> None:
    __tracebackhide__ = True  # pytest shows the user's frames, not the guard's
    mode = session.mode()
    if mode == "off":
        return
    if mode == "warn":
        warnings.warn(ExternalStreamWarning(message), stacklevel=user_stacklevel())
        return
    raise ExternalStreamError(
        message, code=code, operation=operation, device=device, stream_id=stream_id
    )


#: How the stream reached the call, for messages.
SELF, ARG, CURRENT = "the stream", "the stream argument", "the current stream"


def report(
    point: Point, stream: Any, which: str, session: Session, native: str | None = None
) -> None:
    """Raise (or warn about) ``point`` applied to the external ``stream`` (``which`` one)."""
    __tracebackhide__ = True
    device = getattr(stream, "device_index", None)
    stream_id = int(stream.stream_id)
    detail = f"{which} is external (npu:{device}, stream_id={stream_id:#x})"
    operation = spelled(point.operation)
    message = build_message(
        point.code,
        operation,
        point.native if native is None else native,
        detail=detail,
        stopped=session.mode() == "raise",
    )
    _fail(session, message, point.code, operation, device, stream_id)


def report_problem(point: Point, problem: Problem, session: Session) -> None:
    """Raise (or warn about) a refused constructor call."""
    __tracebackhide__ = True
    message = build_message(
        problem.code, point.operation, problem.native, detail=problem.detail,
        stopped=session.mode() == "raise",
    )  # fmt: skip
    _fail(session, message, problem.code, point.operation, None, None)


def _current() -> Any:
    return _state.torch_npu.npu.current_stream()  # type: ignore[union-attr]


Factory = Callable[[Point, Callable[..., Any], Session], Callable[..., Any]]


# --- generic closures: the fallback for callables without an inspectable signature ----------


def _self(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if is_external(self):
            __tracebackhide__ = True
            report(point, self, SELF, session)
        return orig(self, *args, **kwargs)

    return wrapper


def _arg(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    index, name = point.index, point.name

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        stream = args[index] if len(args) > index else kwargs.get(name)
        if is_external(stream):
            __tracebackhide__ = True
            report(point, stream, ARG, session)
        return orig(*args, **kwargs)

    return wrapper


def _event(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    def wrapper(self: Any, stream: Any = None) -> Any:
        current = stream is None
        if current:
            stream = _current()
        if is_external(stream):
            __tracebackhide__ = True
            report(point, stream, CURRENT if current else ARG, session)
        return orig(self, stream)

    return wrapper


def _wait_stream(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    recorded = _recorded_side(point)

    def wrapper(self: Any, stream: Any) -> Any:
        __tracebackhide__ = True
        if is_external(stream):
            report(recorded, stream, ARG, session)
        if is_external(self):
            report(point, self, SELF, session)
        return orig(self, stream)

    return wrapper


def _recorded_side(point: Point) -> Point:
    """``wait_stream``'s first step: torch_npu evaluates ``stream.record_event()`` (recording on
    the argument), then makes ``self`` wait. Both are checked before anything is recorded."""
    return dataclasses.replace(
        point, code="XST103", native=native_not_supported("NPUEvent::record"),
        operation=f"{point.operation} (records an event on its argument)",
    )  # fmt: skip


#: Argument checks torch_npu makes, with its own error, before its external-stream check: a
#: call that fails one of them goes straight to torch_npu, so its error comes first, as without
#: the guard (graphs.py ``_super_kernel_scope_*_impl``: a blank ``scope_name``).
_NATIVE_FIRST: dict[str, Callable[[Any], bool]] = {
    "scope_name": lambda value: isinstance(value, str) and not value.strip(),
}


def _rejected_natively(point: Point, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    for index, name in enumerate(point.params):
        check = _NATIVE_FIRST.get(name)
        if check is None:
            continue
        value = args[index] if len(args) > index else kwargs.get(name)
        if check(value):
            return True
    return False


def _current_kind(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _rejected_natively(point, args, kwargs):
            stream = _current()
            if is_external(stream):
                __tracebackhide__ = True
                report(point, stream, CURRENT, session)
        return orig(*args, **kwargs)

    return wrapper


def _attr(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    name = point.name

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        stream = getattr(self, name, None)
        if is_external(stream):
            __tracebackhide__ = True
            report(point, stream, f"its {name}", session)
        return orig(self, *args, **kwargs)

    return wrapper


def _arm_at_first_external(stream: Any) -> None:
    """The first external stream made under a live installation arms the hazard checks
    (issue 17); before it, and for programs that never make one, they cost nothing."""
    if not _state.hazards_armed and _state.on_first_external is not None and is_external(stream):
        _state.on_first_external()


def _ctor_external(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    def wrapper(cls: Any, *args: Any, **kwargs: Any) -> Any:
        problem = check_external(args, kwargs)
        if problem is not None:
            __tracebackhide__ = True
            report_problem(point, problem, session)  # warn mode / inert: go on unchanged
        stream = orig(cls, *args, **kwargs)
        _arm_at_first_external(stream)
        return stream

    return wrapper


def _ctor_stream(
    point: Point, orig: Callable[..., Any], session: Session, sync_launch: bool
) -> Callable[..., Any]:
    def wrapper(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if "stream_ptr" in kwargs and not (
            _state.external_class is not None and issubclass(cls, _state.external_class)
        ):
            problem = check_stream_ptr_kwargs(args, kwargs, sync_launch=sync_launch)
            if problem is not None:
                __tracebackhide__ = True
                report_problem(point, problem, session)
        stream = orig(cls, *args, **kwargs)
        if "stream_ptr" in kwargs:
            _arm_at_first_external(stream)
        return stream

    return wrapper


# --- torch.distributed -------------------------------------------------------------------------


def _npu_devices(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Devices of the NPU tensors among the arguments (tensors, lists of them, P2POps)."""
    torch = _state.torch
    tensor_type, npu = torch.Tensor, _state.npu_device_type  # type: ignore[union-attr]
    found: list[Any] = []

    def scan(value: Any, depth: int) -> None:
        if isinstance(value, tensor_type):
            device = value.device
            if device.type == npu and device not in found:
                found.append(device)
        elif isinstance(value, (list, tuple)) and depth < 2:
            for item in value:
                scan(item, depth + 1)
        elif depth < 2 and isinstance(getattr(value, "tensor", None), tensor_type):
            scan(value.tensor, depth + 1)  # torch.distributed.P2POp

    for value in args:
        scan(value, 0)
    for value in kwargs.values():
        scan(value, 0)
    return found


def _backend_of(group: Any) -> str:
    """The backend name of a process group ("" when it cannot be told)."""
    try:
        return str(_state.torch.distributed.get_backend(group)).lower()  # type: ignore[union-attr]
    except Exception:  # no default group, not a group, unknown backend: not ours to judge
        return ""


def _group_argument(
    signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    try:
        return signature.bind_partial(*args, **kwargs).arguments.get("group")  # type: ignore[union-attr]
    except Exception:  # not bindable: torch raises its own error for the call
        return None


def _signature_of(func: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        return None


def _native_for(point: Point, backend: str) -> str:
    if "lccl" in backend and "HCCL" in point.native:
        return point.native.replace("ProcessGroupHCCL", "ProcessGroupLCCL")
    return point.native


def _check_devices(point: Point, devices: list[Any], native: str, session: Session) -> None:
    current_stream = _state.torch_npu.npu.current_stream  # type: ignore[union-attr]
    for device in devices:
        stream = current_stream(device)
        if is_external(stream):
            __tracebackhide__ = True
            report(point, stream, CURRENT, session, native)


def _collective(
    point: Point,
    orig: Callable[..., Any],
    session: Session,
    *,
    group_only: bool = False,
    method: bool = False,
) -> Callable[..., Any]:
    """Check the current stream of every NPU tensor's device; ``group_only`` calls (barrier,
    object collectives) carry no tensor and run on the current device of an HCCL group.
    ``method``: a ``ProcessGroup`` method, whose receiver is the group."""
    signature = None if method else _signature_of(orig)
    calls = _state.collective_calls

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if getattr(calls, "inside", False):  # another guarded collective checked them
            return orig(*args, **kwargs)
        devices = _npu_devices(args[1:] if method else args, kwargs)
        backend = ""
        if devices or group_only:
            group = args[0] if method and args else _group_argument(signature, args, kwargs)
            backend = _backend_of(group)
            if not devices and ("hccl" in backend or "lccl" in backend):
                devices = [None]  # the collective runs on the current device
        if devices:
            __tracebackhide__ = True
            _check_devices(point, devices, _native_for(point, backend), session)
        calls.inside = True
        try:
            result = orig(*args, **kwargs)
        finally:
            calls.inside = False
        if devices and result is not None:
            track_work(result, devices, session)
        return result

    return wrapper


def _group(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    return _collective(point, orig, session, group_only=True)


def _group_method(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    return _collective(point, orig, session, group_only=point.attr == "barrier", method=True)


# --- Work.wait / Work.synchronize ---------------------------------------------------------------
#
# HCCL works reach Python as plain ``torch.distributed.Work`` objects (torch_npu binds no
# ``WorkHCCL`` class), the same type gloo's works have. So the class is patched (lazily, by the
# first guarded NPU collective), and its wrapper checks only the works guarded collectives
# returned: one dict lookup for any other work. Works are remembered weakly, with the devices
# their collective ran on.

_tracked: dict[int, tuple[weakref.ref[Any], tuple[Any, ...]]] = {}
#: The keys of ``_tracked``, for the wrappers' cheap membership test.
_tracked_ids: set[int] = set()


def _forget(key: int, ref: weakref.ref[Any]) -> None:
    entry = _tracked.get(key)
    if entry is not None and entry[0] is ref:
        del _tracked[key]
        _tracked_ids.discard(key)


def track_work(result: Any, devices: list[Any], session: Session) -> None:
    """Guard ``wait``/``synchronize`` of the works an NPU collective returned."""
    works = result if isinstance(result, (list, tuple)) else (result,)
    for work in works:
        cls = type(work)
        owner = next((k for k in cls.__mro__ if "wait" in vars(k)), None)
        if owner is None or owner is object:
            continue
        key = id(work)
        try:
            ref = weakref.ref(work, lambda r, key=key: _forget(key, r))
        except TypeError:  # not weak-referenceable: cannot be told apart later, left unguarded
            continue
        _tracked[key] = (ref, tuple(devices))
        _tracked_ids.add(key)
        if not _patching.is_patched(owner):
            with _state.LOCK:
                if session.live and not _patching.is_patched(owner):
                    for point in WORK_POINTS:
                        _patching.patch(owner, point, make_wrapper, session)


def _work(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    # Every work of the class pays this wrapper, so it is lean: names bound in the closure
    # (not as keyword defaults, which a caller's ``_id=`` would reach), a set test that is
    # skipped while nothing is tracked, and an exact-arity call for ``wait()``.
    _ids = _tracked_ids
    _id = id

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _ids and _id(self) in _ids:
            entry = _tracked.get(_id(self))
            if entry is not None and entry[0]() is self:
                __tracebackhide__ = True
                _check_devices(point, list(entry[1]), point.native, session)
        if args or kwargs:
            return orig(self, *args, **kwargs)
        return orig(self)

    return wrapper


# --- compiled wrappers for the hot kinds ------------------------------------------------------
#
# Packing ``*args, **kwargs`` costs more than the check itself, so the wrappers of the kinds
# that sit on hot paths are compiled with the original's own parameter list (defaults are the
# original's default objects, passed through unchanged). The generic closures above remain the
# fallback for callables without an inspectable signature.

#: The one check every compiled wrapper inlines. Managed stream ids are small non-negative ints,
#: so two int compares (specialised by CPython 3.11 for one-digit ints, cheaper than ``&`` with
#: the two-digit ``1 << 30``) clear an ordinary stream; an id that may carry bit 30 goes on to
#: the full test. Neither ``is_external`` nor ``report`` raises what the ``except`` swallows.
_CHECK = """\
    try:
        _xg_id = {stream}.stream_id
        if (_xg_id > {below_mark} or _xg_id < 0) and _xg_is_external({stream}):
            __tracebackhide__ = True
            _xg_report({point}, {stream}, {which}, _xg_session)
    except (AttributeError, TypeError):
        pass
""".replace("{below_mark}", str(EXTERNAL_MARK - 1))  # a constant in the code, no lookup
#: ``Event.record/wait(stream=None)``: resolve the default exactly as torch_npu does
#: (``torch_npu.npu.current_stream()``) and pass it on, so it is looked up once.
_EVENT_DEFAULT = """\
    _xg_which = _xg_ARG
    if {stream} is None:
        {stream} = _xg_current()
        _xg_which = _xg_CURRENT
"""
_CTOR = """\
    if "stream_ptr" in {kwargs}:
        return _xg_slow({first}, {positional}**{kwargs})
"""


_Parts = tuple[list[str], list[str], dict[str, Any]]


def _parameters(func: Callable[..., Any], hint: tuple[str, ...]) -> _Parts:
    """``(definition parts, call parts, defaults namespace)`` mirroring ``func``'s signature."""
    try:
        signature = inspect.signature(func, follow_wrapped=False)
    except (TypeError, ValueError):
        if not hint:
            raise
        return list(hint), list(hint), {}
    definition: list[str] = []
    call: list[str] = []
    namespace: dict[str, Any] = {}
    keyword_only = False
    positional_only_seen = False
    for i, param in enumerate(signature.parameters.values()):
        name, kind = param.name, param.kind
        if name.startswith("_xg_"):
            raise ValueError(name)
        default = ""
        if param.default is not param.empty:
            namespace[f"_xg_d{i}"] = param.default
            default = f"=_xg_d{i}"
        if kind is param.POSITIONAL_ONLY:
            positional_only_seen = True
            definition.append(name + default)
            call.append(name)
            continue
        if positional_only_seen:
            definition.append("/")
            positional_only_seen = False
        if kind is param.POSITIONAL_OR_KEYWORD:
            definition.append(name + default)
            call.append(name)
        elif kind is param.VAR_POSITIONAL:
            definition.append(f"*{name}")
            call.append(f"*{name}")
            keyword_only = True
        elif kind is param.KEYWORD_ONLY:
            if not keyword_only:
                definition.append("*")
                keyword_only = True
            definition.append(name + default)
            call.append(f"{name}={name}")
        else:
            definition.append(f"**{name}")
            call.append(f"**{name}")
    if positional_only_seen:
        definition.append("/")
    return definition, call, namespace


def _generated(
    point: Point, orig: Callable[..., Any], session: Session
) -> Callable[..., Any] | None:
    """A compiled wrapper with ``orig``'s exact signature, or None when it cannot be made."""
    try:
        definition, call, namespace = _parameters(orig, point.params)
    except (TypeError, ValueError):
        return None
    names = [part.lstrip("*").split("=")[0] for part in definition if part not in ("*", "/")]
    stream = names[0] if point.kind == "self" and names else point.name
    if point.kind in ("self", "arg", "event", "wait_stream") and stream not in names:
        return None
    if point.kind in ("self", "arg"):
        which = "_xg_SELF" if point.kind == "self" else "_xg_ARG"
        prologue = _CHECK.format(stream=stream, point="_xg_point", which=which)
    elif point.kind == "event":
        prologue = _EVENT_DEFAULT.format(stream=stream) + _CHECK.format(
            stream=stream, point="_xg_point", which="_xg_which"
        )
    elif point.kind == "wait_stream":
        if names != ["self", "stream"]:
            return None
        namespace["_xg_recorded"] = _recorded_side(point)
        prologue = _CHECK.format(stream="stream", point="_xg_recorded", which="_xg_ARG")
        prologue += _CHECK.format(stream="self", point="_xg_point", which="_xg_SELF")
    else:  # ctor_stream / ctor_sync: only calls passing stream_ptr take the slow path
        kwargs = next((part[2:] for part in definition if part.startswith("**")), None)
        simple = all("=" not in part and not part.startswith("*") for part in call[:-1])
        if kwargs is None or not names or not simple:
            return None  # keyword-only or *args: the generic wrapper handles those
        positional = "".join(
            f"{part}, " for part in call[1:] if not part.startswith("*") and "=" not in part
        )
        prologue = _CTOR.format(first=names[0], positional=positional, kwargs=kwargs)
        sync_launch = point.kind == "ctor_sync"
        namespace["_xg_slow"] = _ctor_stream(point, orig, session, sync_launch=sync_launch)
    source = (
        f"def _xg_wrapper({', '.join(definition)}):\n{prologue}"
        f"    return _xg_orig({', '.join(call)})\n"
    )
    namespace.update(
        _xg_is_external=is_external, _xg_report=report, _xg_current=_current, _xg_point=point,
        _xg_orig=orig, _xg_SELF=SELF, _xg_ARG=ARG, _xg_CURRENT=CURRENT, _xg_session=session,
        __name__=__name__,  # its frames belong to this package (warnings skip them)
    )  # fmt: skip
    exec(compile(source, f"<extstream_guard wrapper for {point.operation}>", "exec"), namespace)
    return namespace["_xg_wrapper"]


_FACTORIES: dict[str, Factory] = {
    "self": _self,
    "arg": _arg,
    "event": _event,
    "wait_stream": _wait_stream,
    "current": _current_kind,
    "attr": _attr,
    "ctor_external": _ctor_external,
    "ctor_stream": lambda p, f, s: _ctor_stream(p, f, s, sync_launch=False),
    "ctor_sync": lambda p, f, s: _ctor_stream(p, f, s, sync_launch=True),
    "collective": _collective,
    "group": _group,
    "group_method": _group_method,
    "work": _work,
}


def make_wrapper(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """A wrapper that checks ``point`` and then calls ``orig`` with the same arguments.

    It acts for ``session`` only: once that installation is over, it lets every call through.
    """
    wrapper = None
    if point.kind in ("self", "arg", "event", "wait_stream", "ctor_stream", "ctor_sync"):
        wrapper = _generated(point, orig, session)
    if wrapper is None:
        wrapper = _FACTORIES[point.kind](point, orig, session)
    try:
        functools.update_wrapper(wrapper, orig)
    except (AttributeError, TypeError):  # some C callables lack the usual dunders
        wrapper.__wrapped__ = orig  # type: ignore[attr-defined]
    _patching.register_wrapper(wrapper, orig)
    return wrapper
