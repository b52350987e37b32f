"""The deferred hazards (issue 17): checks armed at the first external stream, not before.

torch_npu accepts these calls and fails later, often by ``std::terminate`` in a destructor, with
no traceback (contract 2.6, hazards.md):

* **G201** (XST201): a ``non_blocking`` copy between torch_npu pinned host memory and the NPU
  while the NPU device's current stream is external records that stream in the pinned block;
  freeing the block aborts the process. ``npu_t.to("cpu", non_blocking=True)`` is always armed
  (torch_npu allocates its result pinned).
* **G112** (XST112): a copy between two NPUs records and blocks events on both devices' current
  streams: X03/X04 at once when either is external.
* **G203** (XST203): ``backward()`` / ``autograd.grad`` on a graph made under an external stream,
  run outside it (or the reverse): the engine records/waits events on the external stream
  (X06/X07), and forward-under-external then backward-outside also aborts the process when the
  root gradient is freed. Each thread's switches into and out of external streams are recorded
  with the autograd sequence number at that moment; a root's ``grad_fn._sequence_nr()`` then
  says under which stream it was made.
* **G202** (XST202, a warning once; opt-in like the rule: ``EXTSTREAM_GUARD_SELECT=XST202``):
  ``NPUGraph.replay()`` while an external stream is current records the RNG seed tensors of the
  graph on it; if the graph used RNG, the process aborts at ``reset()`` or when the graph is
  collected. Most graphs use none, so it is off by default.

Nothing here runs before the first external stream exists: :func:`arm` patches the points of
:data:`~extstream_guard.patches.HAZARD_POINTS` when the guard's constructor wrappers see one made
(or at install when one is current), so programs that never make one pay nothing more. The copy
wrappers go further: they are in place only while the switch wrappers have seen an external
stream made current in some thread (a Python frame in front of torch's C ``Tensor.to`` costs
more than a ``torch.add``'s tenth), so ordinary copies outside external regions pay nothing.
Checks are ordered cheapest first; the current stream is read with torch_npu's raw
``_npu_getCurrentStream`` (no Python stream object), pinnedness (a driver query) last.
"""

from __future__ import annotations

import bisect
import os
import threading
import warnings
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import RULES, native_not_supported

from . import _patching, _state
from ._frames import user_stacklevel
from .errors import ExternalStreamError, ExternalStreamWarning, build_message
from .patches import HAZARD_POINTS, Point
from .predicate import EXTERNAL_MARK, PRIVATEUSE1

__all__ = ["arm", "disarm", "make_hazard_wrapper"]

Session = _state.Session

#: Autograd ext regions kept per thread and device; older nodes are not judged.
_MAX_REGIONS = 256
_AUTOGRAD_ACCUMULATOR = 1 << 63  # AccumulateGrad's sequence number is UINT64_MAX


# --- the current stream, cheaply ---------------------------------------------------------------


def _current_id(index: int | None) -> int:
    """The raw id of this thread's current stream on NPU ``index`` (None: current device)."""
    C = _state.torch_npu._C  # type: ignore[union-attr]
    if index is None:
        index = C._npu_getDevice()
    return int(C._npu_getCurrentStream(index)[0])


def _index(device: Any) -> int | None:
    return device.index


# --- per-thread record of external regions (G203) -------------------------------------------


class _Regions(threading.local):
    """One thread's switches: ``ext[device]`` is the external stream id current there (as the
    switch wrappers saw it); ``starts[device]`` / ``spans[device]`` the external regions by the
    autograd sequence number at entry, ``[start, end or None, stream_id]``; nodes numbered below
    ``floor[device]`` are older than what is kept and are not judged."""

    def __init__(self) -> None:
        self.generation = -1
        self.reset()

    def reset(self) -> None:
        self.ext: dict[int, int] = {}
        self.starts: dict[int, list[int]] = {}
        self.spans: dict[int, list[list[Any]]] = {}
        self.floor: dict[int, int] = {}


_regions = _Regions()
#: Bumped by every arm/disarm: a thread's record from an earlier installation is discarded.
_generation = 0
#: (thread, device) pairs the switch wrappers saw an external stream made current on, and not
#: left: the copy wrappers test it before looking for a cross-device copy (G112).
_ext_current = [0]
#: Where the copy wrappers go while an external stream is current: resolved at arming,
#: ``(owner, point)``, patched when the count above leaves 0 and restored when it returns to 0.
_copy_targets: list[tuple[Any, Point]] = []
_COPY_KINDS = frozenset({"copy_to", "copy_"})


def _thread_regions() -> _Regions:
    regions = _regions
    if regions.generation != _generation:
        regions.reset()
        regions.generation = _generation
    return regions


def _sequence_nr() -> int:
    return int(_state.torch._C._autograd._get_sequence_nr())  # type: ignore[union-attr]


def _switched(device: int, stream_id: int) -> None:
    """The current stream of ``device`` in this thread is now ``stream_id``."""
    regions = _thread_regions()
    old = regions.ext.get(device)
    new = stream_id if stream_id & EXTERNAL_MARK else None
    if old == new:
        return
    sequence_nr = _sequence_nr()
    spans = regions.spans.setdefault(device, [])
    starts = regions.starts.setdefault(device, [])
    if old is not None:
        if spans and spans[-1][1] is None:
            spans[-1][1] = sequence_nr
        del regions.ext[device]
        _count_external(-1)
    if new is not None:
        spans.append([sequence_nr, None, new])
        starts.append(sequence_nr)
        regions.ext[device] = new
        _count_external(+1)
        if len(spans) > _MAX_REGIONS:
            dropped = spans.pop(0)
            starts.pop(0)
            regions.floor[device] = dropped[1] if dropped[1] is not None else sequence_nr


def _count_external(step: int) -> None:
    """Track how many (thread, device) pairs have an external stream current; the copy
    wrappers are in place exactly while that is not zero. A Python frame in front of
    ``Tensor.to`` costs more than the check in it, so ordinary copies outside external
    regions must not pay it."""
    with _state.LOCK:
        before = _ext_current[0]
        _ext_current[0] = max(before + step, 0)
        session = _state.session
        if session is None or not _state.hazards_armed:
            return
        if before == 0 and _ext_current[0] > 0:
            for owner, point in _copy_targets:
                _patching.patch(owner, point, make_hazard_wrapper, session)
        elif before > 0 and _ext_current[0] == 0:
            for owner, point in _copy_targets:
                _patching.unpatch(owner, point.attr)


def _stream_switched(stream: Any) -> None:
    try:
        if stream.device_type != PRIVATEUSE1:
            return
        _switched(int(stream.device_index), int(stream.stream_id))
    except (AttributeError, TypeError, ValueError):
        return


def _made_under(device: int, sequence_nr: int) -> tuple[bool, int | None]:
    """``(known, external stream id or None)`` for a node made in this thread."""
    regions = _regions
    if sequence_nr < regions.floor.get(device, 0):
        return False, None
    starts = regions.starts.get(device)
    if not starts:
        return True, None
    at = bisect.bisect_right(starts, sequence_nr) - 1
    if at < 0:
        return True, None
    _start, end, stream_id = regions.spans[device][at]
    return True, stream_id if end is None or sequence_nr < end else None


# --- reporting ------------------------------------------------------------------------------


def _fail(session: Session, code: str, operation: str, native: str, detail: str,
          device: Any, stream_id: Any) -> None:  # fmt: skip
    mode = session.mode()
    if mode == "off":
        return
    message = build_message(code, operation, native, detail=detail, stopped=mode == "raise")
    if mode == "warn":
        warnings.warn(ExternalStreamWarning(message), stacklevel=user_stacklevel())
        return
    raise ExternalStreamError(
        message, code=code, operation=operation, device=device, stream_id=stream_id
    )


def _stream_text(index: int, stream_id: int) -> str:
    return f"npu:{index}, stream_id={stream_id:#x}"


# --- G201 / G112: copies --------------------------------------------------------------------


def _device_of(value: Any) -> Any:
    """The device a ``Tensor.to`` argument names, or None (a dtype, a flag, nothing)."""
    torch = _state.torch
    if isinstance(value, torch.Tensor):  # type: ignore[union-attr]
        return value.device
    if isinstance(value, torch.device):  # type: ignore[union-attr]
        return value
    if isinstance(value, str):
        device = _parsed_devices.get(value)
        if device is None:
            try:
                device = torch.device(value)  # type: ignore[union-attr]
            except RuntimeError:
                return None
            if len(_parsed_devices) < 64:
                _parsed_devices[value] = device
        return device
    return None


#: ``"cpu"``, ``"npu:0"`` ... parsed once (``torch.device`` of a string is the slow part).
_parsed_devices: dict[str, Any] = {}


def _check_copy(
    session: Session,
    operation: str,
    src_device: Any,
    dst_device: Any,
    non_blocking: bool,
    host: Any,
) -> None:
    """One copy from ``src_device`` to ``dst_device``; ``host`` is the CPU side (tensor or
    storage) whose pinnedness matters, None when the host side is pinned by construction."""
    npu = _state.npu_device_type
    src_npu, dst_npu = src_device.type == npu, dst_device.type == npu
    if src_npu and dst_npu:
        src, dst = _index(src_device), _index(dst_device)
        if src is None or dst is None:
            current = _state.torch_npu._C._npu_getDevice()  # type: ignore[union-attr]
            src, dst = current if src is None else src, current if dst is None else dst
        if src == dst:
            return
        for index, which, api in ((src, "source", "NPUEvent::record"),
                                  (dst, "destination", "NPUEvent::block")):  # fmt: skip
            stream_id = _current_id(index)
            if stream_id & EXTERNAL_MARK:
                _fail(session, "XST112", operation, native_not_supported(api),
                      f"copy from npu:{src} to npu:{dst} while the {which} device's current "
                      f"stream is external ({_stream_text(index, stream_id)})",
                      index, stream_id)  # fmt: skip
                return
        return
    if not non_blocking or src_npu == dst_npu:
        return
    cpu = "cpu"
    if (src_device.type if dst_npu else dst_device.type) != cpu:
        return
    index = _index(dst_device if dst_npu else src_device)
    stream_id = _current_id(index)
    if not stream_id & EXTERNAL_MARK:
        return
    if index is None:
        index = _state.torch_npu._C._npu_getDevice()  # type: ignore[union-attr]
    if host is not None and not host.is_pinned():
        return
    if dst_npu:
        what = f"from pinned host memory to npu:{index}"
    elif host is None:
        what = f"from npu:{index} to host memory, whose result torch_npu allocates pinned"
    else:
        what = f"from npu:{index} into pinned host memory"
    _fail(session, "XST201", operation, "",
          f"non_blocking copy {what} while the current stream is external "
          f"({_stream_text(index, stream_id)})", index, stream_id)  # fmt: skip


def _to_copy(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    gate = _ext_current

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        non_blocking = kwargs.get("non_blocking", False) if kwargs else False
        if not non_blocking and len(args) > 1:
            for arg in args:
                if arg is True:
                    non_blocking = True
                    break
        if non_blocking or gate[0]:
            _check_to(session, point, self, args, kwargs, bool(non_blocking))
        return orig(self, *args, **kwargs)

    return wrapper


def _check_to(session: Session, point: Point, self: Any, args: tuple[Any, ...],
              kwargs: dict[str, Any], non_blocking: bool) -> None:  # fmt: skip
    target = kwargs.get("device")
    device = _device_of(target) if target is not None else None
    if device is None:
        for arg in args[:2]:
            device = _device_of(arg)
            if device is not None:
                break
    if device is None:
        return
    src = self.device
    if src == device:
        return
    host = self if device.type == _state.npu_device_type else None
    _check_copy(session, point.operation, src, device, non_blocking, host)


def _copy_(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``Tensor.copy_(src, non_blocking=False)`` and ``UntypedStorage.copy_(src, non_blocking)``."""
    gate = _ext_current

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) > 1:
            non_blocking = args[1]
        else:
            non_blocking = kwargs.get("non_blocking", False) if kwargs else False
        if non_blocking or gate[0]:
            # ``Tensor.copy_(other, ...)``, ``UntypedStorage.copy_(src, ...)``
            src = args[0] if args else kwargs.get("other", kwargs.get("src"))
            src_device = getattr(src, "device", None)
            if src_device is not None:
                dst_device = self.device
                if src_device != dst_device:
                    npu = _state.npu_device_type
                    host = self if dst_device.type != npu else src
                    _check_copy(session, point.operation, src_device, dst_device,
                                bool(non_blocking), host)  # fmt: skip
        return orig(self, *args, **kwargs)

    return wrapper


# --- G203: stream switches and the backward entry ---------------------------------------------


def _switch_set(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``set_stream(stream)``: torch_npu's (``StreamContext`` uses it) and torch.accelerator's."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = orig(*args, **kwargs)
        stream = args[0] if args else kwargs.get("stream")
        if stream is not None and session.live:
            _stream_switched(stream)
        return result

    return wrapper


def _switch_enter(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``with stream:`` (``torch.Stream.__enter__``, inherited by torch_npu's ``Stream``)."""

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = orig(self, *args, **kwargs)
        if session.live:
            _stream_switched(self)
        return result

    return wrapper


def _switch_exit(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """Leaving ``with stream:`` restores the previous stream in C++: read what is current."""

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = orig(self, *args, **kwargs)
        if session.live:
            try:
                index = int(self.device_index)
            except (AttributeError, TypeError, ValueError):
                return result
            _switched(index, _current_id(index))
        return result

    return wrapper


def _check_backward(session: Session, point: Point, roots: Any) -> None:
    regions = _regions
    npu = _state.npu_device_type
    if isinstance(roots, _state.torch.Tensor):  # type: ignore[union-attr]
        roots = (roots,)
    for root in roots:
        try:
            device = root.device  # a GradientEdge has none: its device is not known here
        except AttributeError:
            continue
        if device.type != npu:
            continue
        node = root.grad_fn
        if node is None:
            continue
        index = device.index if device.index is not None else 0
        try:
            sequence_nr = int(node._sequence_nr())
        except (AttributeError, RuntimeError, TypeError):
            continue
        if sequence_nr >= _AUTOGRAD_ACCUMULATOR:
            continue
        known, made = _made_under(index, sequence_nr)
        now = regions.ext.get(index)
        if not known or made == now:
            continue
        # The engine records on the caller's stream first (X06 if external), then the root
        # node's stream waits (X07 if external).
        native = native_not_supported("LaunchRecordEventTask" if now else "LaunchWaitEventTask")
        if made is not None:
            detail = (
                f"the graph was built while external stream {_stream_text(index, made)} was "
                "current, and backward runs on "
                + (f"external stream {_stream_text(index, now)}" if now else "another stream")
            )
        else:
            assert now is not None
            detail = (
                "backward runs while external stream "
                f"{_stream_text(index, now)} is current, on a graph built outside it"
            )
        stream_id = made if made is not None else now
        _fail(session, "XST203", point.operation, native, detail, index, stream_id)
        return


def _backward(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``torch.autograd._engine_run_backward``, the entry ``backward`` and ``grad`` share."""

    def wrapper(t_outputs: Any, *args: Any, **kwargs: Any) -> Any:
        regions = _regions
        if regions.generation == _generation and (regions.spans or regions.ext):
            _check_backward(session, point, t_outputs)
        return orig(t_outputs, *args, **kwargs)

    return wrapper


# --- G202: graph replay -------------------------------------------------------------------------

_replay_warned = [False]


def _replay(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _replay_warned[0] and session.mode() != "off":
            stream_id = _current_id(None)
            if stream_id & EXTERNAL_MARK:
                _replay_warned[0] = True
                index = _state.torch_npu._C._npu_getDevice()  # type: ignore[union-attr]
                message = build_message(
                    point.code, point.operation, "",
                    detail=f"the current stream is external ({_stream_text(index, stream_id)})",
                    stopped=False,
                )  # fmt: skip
                warnings.warn(ExternalStreamWarning(message), stacklevel=user_stacklevel())
        return orig(self, *args, **kwargs)

    return wrapper


_FACTORIES: dict[str, Callable[[Point, Callable[..., Any], Session], Callable[..., Any]]] = {
    "copy_to": _to_copy,
    "copy_": _copy_,
    "switch_set": _switch_set,
    "switch_enter": _switch_enter,
    "switch_exit": _switch_exit,
    "backward": _backward,
    "replay": _replay,
}


def make_hazard_wrapper(
    point: Point, orig: Callable[..., Any], session: Session
) -> Callable[..., Any]:
    wrapper = _FACTORIES[point.kind](point, orig, session)
    try:
        wrapper.__name__ = getattr(orig, "__name__", point.attr)
        wrapper.__qualname__ = getattr(orig, "__qualname__", point.attr)
        wrapper.__doc__ = getattr(orig, "__doc__", None)
    except (AttributeError, TypeError):
        pass
    wrapper.__wrapped__ = orig  # type: ignore[attr-defined]
    _patching.register_wrapper(wrapper, orig)
    return wrapper


# --- arming ---------------------------------------------------------------------------------


def _external_devices() -> list[tuple[int, int]]:
    """``(device, stream id)`` for each device whose current stream (this thread) is external."""
    torch_npu = _state.torch_npu
    try:
        count = int(torch_npu.npu.device_count())  # type: ignore[union-attr]
    except Exception:  # no device: nothing can be current
        return []
    found = []
    for index in range(count):
        stream_id = _current_id(index)
        if stream_id & EXTERNAL_MARK:
            found.append((index, stream_id))
    return found


#: Comma-separated opt-in codes the guard checks too (``XST202``); read when it arms.
SELECT_ENV = "EXTSTREAM_GUARD_SELECT"


def selected_opt_in() -> frozenset[str]:
    """The opt-in codes named by ``EXTSTREAM_GUARD_SELECT`` (case-insensitive)."""
    value = os.environ.get(SELECT_ENV, "")
    return frozenset(part.strip().upper() for part in value.split(",") if part.strip())


def arm(resolve: Callable[[str], Any], *, at_install: bool = False) -> list[str]:
    """Patch the hazard points for the live installation (once); return missing targets.

    ``at_install``: called by ``install()``, which arms only if an external stream is
    already current in the installing thread (none can be made unseen once it runs).
    """
    global _generation
    with _state.LOCK:
        session = _state.session
        if session is None or _state.hazards_armed:
            return []
        current = _external_devices() if at_install else []
        if at_install and not current:
            return []
        missing = []
        selected = selected_opt_in()
        _copy_targets.clear()
        for point in HAZARD_POINTS:
            if RULES[point.code].opt_in and point.code not in selected:
                continue  # low precision: off unless selected, as in the linter
            for path in point.owners:
                owner = resolve(path)
                if point.kind in _COPY_KINDS and owner is not None:
                    if callable(getattr(owner, point.attr, None)):
                        _copy_targets.append((owner, point))  # patched in external regions
                        continue
                    owner = None
                if owner is None or not _patching.patch(owner, point, make_hazard_wrapper, session):
                    note = " (optional: absent from some releases)" if point.optional else ""
                    missing.append(f"{path}.{point.attr}{note}")
        _generation += 1
        _ext_current[0] = 0
        _replay_warned[0] = False
        _state.hazards_armed = True
        regions = _thread_regions()
        for index, stream_id in current:
            _switched(index, stream_id)
            regions.floor[index] = regions.starts[index][-1]  # older nodes: unknown
        return missing


def disarm() -> None:
    """Forget every thread's record (the patches themselves go with ``restore_all``)."""
    global _generation
    _generation += 1
    _ext_current[0] = 0
    _copy_targets.clear()
    _state.hazards_armed = False
