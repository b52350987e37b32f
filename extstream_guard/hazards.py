"""The deferred hazards (issues 17, 31): checks armed at the first external stream, not before.

torch_npu accepts these calls and fails later, often by ``std::terminate`` in a destructor, with
no traceback (contract 2.6, hazards.md):

* **G201** (XST201) pinned ``non_blocking`` copies and **G112** (XST112) copies between NPUs:
  :mod:`extstream_guard._copies`.
* **G203** (XST203) ``backward()`` / ``autograd.grad`` across an external-stream boundary:
  :mod:`extstream_guard._autograd`.
* **G202** (XST202, a warning once; opt-in like the rule: ``EXTSTREAM_GUARD_SELECT=XST202``):
  ``NPUGraph.replay()`` while an external stream is current records the RNG seed tensors of the
  graph on it; if the graph used RNG, the process aborts at ``reset()`` or when the graph is
  collected. Most graphs use none, so it is off by default.

Nothing here runs before the first external stream exists: :func:`arm` patches the points of
:data:`~extstream_guard.patches.HAZARD_POINTS` once, when the guard's constructor wrappers see
one made, a stream switch makes one current (one made before ``install()``: the switches are
wrapped at install, :func:`patch_switches`), or at install when one is current, and leaves them
in place until uninstall, so programs that never make one pay one frame per stream switch and
nothing more, and entering a region costs no patching. The
wrappers decide from state they read at the call (the current stream through torch_npu's raw
``_npu_getCurrentStream``, pinnedness last), never from switches they tracked.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import RULES

from . import _autograd, _copies, _operators, _patching, _state
from ._frames import user_stacklevel
from ._hazard_report import current_id, note_devices, stream_text
from .errors import ExternalStreamWarning, build_message
from .patches import HAZARD_POINTS, Point
from .predicate import EXTERNAL_MARK

__all__ = ["arm", "disarm", "make_hazard_wrapper", "patch_switches", "selected_opt_in"]

Session = _state.Session


# --- G202: graph replay -------------------------------------------------------------------------

_replay_warned = [False]


def _replay(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _replay_warned[0] and session.mode() != "off":
            stream_id = current_id(None)
            if stream_id & EXTERNAL_MARK:
                _replay_warned[0] = True
                index = _state.torch_npu._C._npu_getDevice()  # type: ignore[union-attr]
                message = build_message(
                    point.code, point.operation, "",
                    detail=f"the current stream is external ({stream_text(index, stream_id)})",
                    stopped=False,
                )  # fmt: skip
                warnings.warn(ExternalStreamWarning(message), stacklevel=user_stacklevel())
        return orig(self, *args, **kwargs)

    return wrapper


_FACTORIES: dict[str, Callable[[Point, Callable[..., Any], Session], Callable[..., Any]]] = {
    "copy_to": _copies.to_wrapper,
    "copy_": _copies.copy_wrapper,
    "switch_raw": _autograd.switch_wrapper,
    "switch_set": _autograd.switch_wrapper,
    "switch_enter": _autograd.switch_wrapper,
    "switch_exit": _autograd.switch_wrapper,
    "backward": _autograd.backward_wrapper,
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


def _current_streams() -> list[tuple[int, int]]:
    """``(device, stream id)`` of this thread's current stream on every device."""
    torch_npu = _state.torch_npu
    try:
        count = int(torch_npu.npu.device_count())  # type: ignore[union-attr]
    except Exception:  # no device: nothing can be current
        return []
    return [(index, current_id(index)) for index in range(count)]


#: Comma-separated opt-in codes the guard checks too (``XST202``); read when it arms.
SELECT_ENV = "EXTSTREAM_GUARD_SELECT"


def selected_opt_in() -> frozenset[str]:
    """The opt-in codes named by ``EXTSTREAM_GUARD_SELECT`` (case-insensitive)."""
    value = os.environ.get(SELECT_ENV, "")
    return frozenset(part.strip().upper() for part in value.split(",") if part.strip())


#: Where a thread's current stream changes: patched at install, not at arming (issue 40). An
#: external stream made before ``install()`` (or in an earlier installation) exists unseen; it
#: can only become current through one of these, and the first time one does, it arms.
SWITCH_KINDS = frozenset({"switch_raw", "switch_set", "switch_enter", "switch_exit"})


def patch_switches(resolve: Callable[[str], Any]) -> list[str]:
    """At install: wrap the stream switches, which arm the checks when they make an external
    stream current while none is armed; return missing targets."""
    with _state.LOCK:
        session = _state.session
        if session is None:
            return []
        switches = [p for p in HAZARD_POINTS if p.kind in SWITCH_KINDS]
        return _patching.patch_points(resolve, switches, make_hazard_wrapper, session)


def arm(resolve: Callable[[str], Any], *, at_install: bool = False) -> list[str]:
    """Patch the hazard points for the live installation (once); return missing targets.

    ``at_install``: called by ``install()``, which arms only if an external stream is
    already current in the installing thread (any made current later goes through a switch
    :func:`patch_switches` wrapped, which arms then). Whoever arms, the arming thread's
    current streams are read: an external stream made current before the checks armed (one
    made before ``install()``) is seen from here on.
    """
    with _state.LOCK:
        session = _state.session
        if session is None or _state.hazards_armed:
            return []
        current = _current_streams()
        if at_install and not any(stream_id & EXTERNAL_MARK for _, stream_id in current):
            return []
        selected = selected_opt_in()
        points = [
            point
            for point in HAZARD_POINTS  # opt-in codes: low precision, off unless selected
            if point.kind not in SWITCH_KINDS
            and (not RULES[point.code].opt_in or point.code in selected)
        ]
        missing = _patching.patch_points(resolve, points, make_hazard_wrapper, session)
        _operators.arm()  # torch.ops.aten's copy operators: their objects' class
        _autograd.reset()
        _replay_warned[0] = False
        _state.hazards_armed = True
        note_devices(len(current))
        _autograd.start_thread(current)
        return missing


def disarm() -> None:
    """Forget every thread's record and give the copy operators their class back (the patches
    themselves go with ``restore_all``)."""
    _operators.restore()
    _autograd.reset()
    _state.hazards_armed = False
