"""Wrapper factories, one per ``kind`` of :mod:`extstream_guard.patches`.

The hot path (a call on an ordinary stream) is one attribute read (``stream_id``) and a bit test
inside a try block (zero-cost in CPython 3.11+); ``device_type`` is read only when bit 30 is set.
No allocation, no lock, no mode lookup: only a detected external stream reaches :func:`report`,
which reads the mode and raises or warns.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import native_not_supported

from . import _fastpath, _state
from .ctor import Problem, check_external, check_stream_ptr_kwargs
from .errors import (
    ExternalStreamError,
    ExternalStreamTypeError,
    ExternalStreamWarning,
    build_message,
)
from .patches import Point
from .predicate import EXTERNAL_MARK, is_external

__all__ = ["make_wrapper", "report", "unwrap"]

#: Attribute set on every wrapper so the original can be found again (``unwrap``).
WRAPPER_FLAG = "__extstream_guard__"


def _fail(
    message: str, code: str, operation: str, device: Any, stream_id: Any, type_error: bool = False
) -> None:
    if _state.mode == "warn":
        warnings.warn(ExternalStreamWarning(message), stacklevel=4)
        return
    cls = ExternalStreamTypeError if type_error else ExternalStreamError
    raise cls(message, code=code, operation=operation, device=device, stream_id=stream_id)


#: How the stream reached the call, for messages.
SELF, ARG, CURRENT = "the stream", "the stream argument", "the current stream"


def report(point: Point, stream: Any, which: str, native: str | None = None) -> None:
    """Raise (or warn about) ``point`` applied to the external ``stream`` (``which`` one)."""
    device = getattr(stream, "device_index", None)
    stream_id = int(stream.stream_id)
    detail = f"{which} is external (npu:{device}, stream_id={stream_id:#x})"
    message = build_message(point.code, point.operation, point.native if native is None else native,
                            detail=detail)  # fmt: skip
    _fail(message, point.code, point.operation, device, stream_id)


def report_problem(point: Point, problem: Problem) -> None:
    """Raise (or warn about) a refused constructor call."""
    message = build_message(problem.code, point.operation, problem.native, detail=problem.detail)
    _fail(message, problem.code, point.operation, None, None, problem.type_error)


def unwrap(func: Any) -> Any:
    """The original behind a guard wrapper (or ``func`` itself)."""
    while getattr(func, WRAPPER_FLAG, False):
        func = func.__wrapped__
    return func


def _current() -> Any:
    return _state.torch_npu.npu.current_stream()  # type: ignore[union-attr]


# --- generic closures: the fallback for callables without an inspectable signature ----------


def _self(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if is_external(self):
            report(point, self, SELF)
        return orig(self, *args, **kwargs)

    return wrapper


def _arg(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    index, name = point.index, point.name

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        stream = args[index] if len(args) > index else kwargs.get(name)
        if is_external(stream):
            report(point, stream, ARG)
        return orig(*args, **kwargs)

    return wrapper


def _event(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: Any, stream: Any = None) -> Any:
        current = stream is None
        if current:
            stream = _current()
        if is_external(stream):
            report(point, stream, CURRENT if current else ARG)
        return orig(self, stream)

    return wrapper


def _wait_stream(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    recorded = _recorded_side(point)

    def wrapper(self: Any, stream: Any) -> Any:
        if is_external(stream):
            report(recorded, stream, ARG)
        if is_external(self):
            report(point, self, SELF)
        return orig(self, stream)

    return wrapper


def _recorded_side(point: Point) -> Point:
    """``wait_stream``'s first step: torch_npu evaluates ``stream.record_event()`` (recording on
    the argument), then makes ``self`` wait. Both are checked before anything is recorded."""
    return dataclasses.replace(
        point, code="XST103", native=native_not_supported("NPUEvent::record"),
        operation=f"{point.operation} (records an event on its argument)",
    )  # fmt: skip


def _current_kind(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        stream = _current()
        if is_external(stream):
            report(point, stream, CURRENT)
        return orig(*args, **kwargs)

    return wrapper


def _attr(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    name = point.name

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        stream = getattr(self, name, None)
        if is_external(stream):
            report(point, stream, f"its {name}")
        return orig(self, *args, **kwargs)

    return wrapper


def _ctor_external(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(cls: Any, *args: Any, **kwargs: Any) -> Any:
        problem, new_args, new_kwargs = check_external(args, kwargs)
        if problem is not None:
            report_problem(point, problem)  # in warn mode: go on with what the caller passed
            return orig(cls, *args, **kwargs)
        return orig(cls, *new_args, **new_kwargs)

    return wrapper


def _ctor_stream(point: Point, orig: Callable[..., Any], sync_launch: bool) -> Callable[..., Any]:
    def wrapper(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if "stream_ptr" in kwargs and not (
            _state.external_class is not None and issubclass(cls, _state.external_class)
        ):
            problem, new_kwargs = check_stream_ptr_kwargs(args, kwargs, sync_launch=sync_launch)
            if problem is not None:
                report_problem(point, problem)
                return orig(cls, *args, **kwargs)
            kwargs = new_kwargs
        return orig(cls, *args, **kwargs)

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


def _backend_name(
    signature: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> str:
    """The backend of the call's ``group`` argument ("" when it cannot be told)."""
    try:
        group = signature.bind_partial(*args, **kwargs).arguments.get("group")  # type: ignore[union-attr]
        return str(_state.torch.distributed.get_backend(group)).lower()  # type: ignore[union-attr]
    except Exception:  # no default group, not a group, unknown backend: not ours to judge
        return ""


def _signature_of(func: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(func)
    except (TypeError, ValueError):
        return None


def _native_for(point: Point, backend: str) -> str:
    if "lccl" in backend and "HCCL" in point.native:
        return point.native.replace("ProcessGroupHCCL", "ProcessGroupLCCL")
    return point.native


def _check_devices(point: Point, devices: list[Any], native: str) -> None:
    current_stream = _state.torch_npu.npu.current_stream  # type: ignore[union-attr]
    for device in devices:
        stream = current_stream(device)
        if is_external(stream):
            report(point, stream, CURRENT, native)


def _collective(
    point: Point, orig: Callable[..., Any], *, group_only: bool = False
) -> Callable[..., Any]:
    """Check the current stream of every NPU tensor's device; ``group_only`` calls (barrier,
    object collectives) carry no tensor and run on the current device of an HCCL group."""
    from .install import watch_work  # the installer owns the patch records

    signature = _signature_of(orig)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        devices = _npu_devices(args, kwargs)
        backend = ""
        if devices or group_only:
            backend = _backend_name(signature, args, kwargs)
            if not devices and ("hccl" in backend or "lccl" in backend):
                devices = [None]  # the collective runs on the current device
        if devices:
            _check_devices(point, devices, _native_for(point, backend))
        result = orig(*args, **kwargs)
        if devices and result is not None:
            watch_work(result)
        return result

    return wrapper


def _group(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    return _collective(point, orig, group_only=True)


def _work(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        stream = _current()
        if is_external(stream):
            report(point, stream, CURRENT)
        return orig(self, *args, **kwargs)

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
            _xg_report({point}, {stream}, {which})
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
#: ``wait_stream`` once both sides are checked, when torch_npu's stock code is in place
#: (:mod:`extstream_guard._fastpath`): its own steps, down to the C base type's record/wait.
_WAIT_STREAM_FAST = """\
    if (
        type(stream).record_event in _xg_record_event_ok
        and type(self).wait_event in _xg_wait_event_ok
        and _xg_streams.Event is _xg_event_cls
        and (
            (_xg_event_cls.record is _xg_trusted_record and _xg_event_cls.wait is _xg_trusted_wait)
            or _xg_learn()
        )
    ):
        _xg_event = _xg_event_cls()
        _xg_base_record(_xg_event, stream)
        _xg_base_wait(_xg_event, self)
        return None
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


def _generated(point: Point, orig: Callable[..., Any]) -> Callable[..., Any] | None:
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
        prologue += _wait_stream_fast(orig, namespace)
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
        namespace["_xg_slow"] = _ctor_stream(point, orig, sync_launch=sync_launch)
    source = (
        f"def _xg_wrapper({', '.join(definition)}):\n{prologue}"
        f"    return _xg_orig({', '.join(call)})\n"
    )
    namespace.update(
        _xg_is_external=is_external, _xg_report=report, _xg_current=_current, _xg_point=point,
        _xg_orig=orig, _xg_SELF=SELF, _xg_ARG=ARG, _xg_CURRENT=CURRENT,
    )  # fmt: skip
    exec(compile(source, f"<extstream_guard wrapper for {point.operation}>", "exec"), namespace)
    return namespace["_xg_wrapper"]


def _wait_stream_fast(orig: Callable[..., Any], namespace: dict[str, Any]) -> str:
    """The fast tail of a compiled ``wait_stream`` and its names, or "" when the code is not
    torch_npu's stock (then the wrapper checks both sides and calls ``orig``)."""
    plan = _fastpath.plan(orig, unwrap)
    if plan is None:
        return ""

    def learn() -> bool:
        # Reached only when Event.record / Event.wait are not the pair last trusted (the first
        # call, or someone patched them): trust them as they are now if they are the stock
        # methods or the guard's wrappers of them; anything else keeps the normal path.
        record, wait = plan.event_cls.record, plan.event_cls.wait
        trusted = plan.trusts(record, wait)
        namespace["_xg_trusted_record"] = record if trusted else None
        namespace["_xg_trusted_wait"] = wait if trusted else None
        return trusted

    namespace.update(
        _xg_record_event_ok=plan.record_event, _xg_wait_event_ok=plan.wait_event,
        _xg_event_cls=plan.event_cls, _xg_streams=plan.streams, _xg_base_record=plan.record,
        _xg_base_wait=plan.wait, _xg_trusted_record=None, _xg_trusted_wait=None,
        _xg_learn=learn,
    )  # fmt: skip
    return _WAIT_STREAM_FAST


_FACTORIES: dict[str, Callable[[Point, Callable[..., Any]], Callable[..., Any]]] = {
    "self": _self,
    "arg": _arg,
    "event": _event,
    "wait_stream": _wait_stream,
    "current": _current_kind,
    "attr": _attr,
    "ctor_external": _ctor_external,
    "ctor_stream": lambda p, f: _ctor_stream(p, f, sync_launch=False),
    "ctor_sync": lambda p, f: _ctor_stream(p, f, sync_launch=True),
    "collective": _collective,
    "group": _group,
    "work": _work,
}


def make_wrapper(point: Point, orig: Callable[..., Any]) -> Callable[..., Any]:
    """A wrapper that checks ``point`` and then calls ``orig`` with the same arguments."""
    wrapper = None
    if point.kind in ("self", "arg", "event", "wait_stream", "ctor_stream", "ctor_sync"):
        wrapper = _generated(point, orig)
    if wrapper is None:
        wrapper = _FACTORIES[point.kind](point, orig)
    try:
        functools.update_wrapper(wrapper, orig)
    except (AttributeError, TypeError):  # some C callables lack the usual dunders
        wrapper.__wrapped__ = orig  # type: ignore[attr-defined]
    setattr(wrapper, WRAPPER_FLAG, True)
    return wrapper
