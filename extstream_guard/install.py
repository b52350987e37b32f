"""Install / uninstall the guard: apply every patch point, restore exactly.

The guard is process-wide (patches on shared classes and modules), so it is reference
counted. Each reference has a mode:

* :func:`install` holds one reference (installing again replaces its mode and makes it the
  most recent); :func:`uninstall` drops it;
* every open :func:`installed` block holds one reference, in any thread, until it exits.

The patches are in place while any reference asks for ``raise`` or ``warn``, and are restored
exactly (see :mod:`._patching`) when the last such reference goes. The effective mode is the
mode of the most recent reference still held: a block entered in one thread sets the mode for
every thread until it exits, and a block never removes the guard from under another block.
Everything runs under one ``RLock``.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any

from . import _patching, _state, _torch_npu, hazards
from ._frames import user_stacklevel
from .errors import GuardCoverageWarning
from .patches import GROUP_METHOD_POINTS, POINTS, Point
from .wrappers import make_wrapper

__all__ = ["MODES", "get_mode", "install", "installed", "patched", "uninstall"]

MODES = ("raise", "warn", "off")

#: References held, oldest first: ``(holder, mode)``; the holder is ``_EXPLICIT`` for
#: :func:`install` or a fresh object per :func:`installed` block.
_references: list[tuple[object, str]] = []
_EXPLICIT = object()


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"extstream_guard mode must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def resolve(path: str) -> Any:
    """The object at dotted ``path`` (attribute access first, then ``sys.modules``)."""
    root, *rest = path.split(".")
    obj: Any = sys.modules.get(root)
    for part in rest:
        if obj is None:
            break
        obj = getattr(obj, part, None)
    return obj if obj is not None else sys.modules.get(path)


def _points() -> tuple[Point, ...]:
    return (*POINTS, *GROUP_METHOD_POINTS)


def _patch_all(session: _state.Session) -> list[str]:
    """Apply every point; return the dotted names of the targets that were not found."""
    points = [point for point in _points() if not point.subclass_only]
    return _patching.patch_points(resolve, points, make_wrapper, session)


def warn_missing(missing: list[str]) -> None:
    torch_npu = _state.torch_npu
    torch = _state.torch
    versions = (
        f"torch_npu {getattr(torch_npu, '__version__', '?')}, "
        f"torch {getattr(torch, '__version__', '?')}"
    )
    warnings.warn(
        GuardCoverageWarning(
            f"extstream_guard: {len(missing)} patch target(s) not found in this installation "
            f"({versions}), so calls through them are not guarded: {', '.join(missing)}"
        ),
        stacklevel=user_stacklevel(),
    )


def _start() -> None:
    torch_npu = _torch_npu.load()
    torch = sys.modules["torch"]
    _state.torch_npu, _state.torch = torch_npu, torch
    _state.npu_device_type = torch._C._get_privateuse1_backend_name()
    _state.external_class = getattr(torch_npu.npu, "ExternalStream", None)
    session = _state.Session()
    _state.session = session
    _state.on_first_external = _arm_hazards
    try:
        missing = _patch_all(session)
        # The switches arm the hazard checks when an external stream made before install
        # becomes current; one already current cannot wait for that.
        missing += hazards.patch_switches(resolve)
        missing += hazards.arm(resolve, at_install=True)
    except BaseException:
        _stop()
        raise
    if missing:
        warn_missing(missing)


def _arm_hazards() -> None:
    """The first external stream was made: patch the hazard checks (issue 17)."""
    missing = hazards.arm(resolve)
    if missing:
        warn_missing(missing)


def _stop() -> None:
    _state.on_first_external = None
    _patching.restore_all()
    hazards.disarm()
    if _state.session is not None:
        _state.session.live = False  # wrappers left behind anywhere are inert from now on
    _state.session = None


def _apply() -> None:
    """Make the patches and the mode match the references held (under the lock)."""
    wanted = any(mode != "off" for _, mode in _references)
    if wanted and _state.session is None:
        _state.mode = _references[-1][1]
        try:
            _start()
        except BaseException:
            _state.mode = "off"
            raise
    elif not wanted and _state.session is not None:
        _stop()
    _state.mode = _references[-1][1] if _references and _state.session is not None else "off"


def _drop(holder: object) -> None:
    _references[:] = [(h, m) for h, m in _references if h is not holder]


def install(mode: str = "raise") -> None:
    """Patch torch_npu (and torch.distributed) so unsupported calls fail early and precisely.

    ``mode``: ``"raise"`` an :class:`ExternalStreamError`, ``"warn"`` (an
    :class:`ExternalStreamWarning` with the same text, then the call goes through) or ``"off"``
    (same as :func:`uninstall`). Calling it again only changes the mode. Warns with a
    :class:`GuardCoverageWarning` naming each patch target this torch / torch_npu lacks. Imports
    torch_npu, with a clear ImportError when it is not installed.
    """
    _check_mode(mode)
    with _state.LOCK:
        _drop(_EXPLICIT)
        if mode != "off":
            _references.append((_EXPLICIT, mode))
        try:
            _apply()
        except BaseException:
            _drop(_EXPLICIT)
            raise


def uninstall() -> None:
    """Drop :func:`install`'s reference: the patches are restored exactly, unless an
    :func:`installed` block (in any thread) still holds the guard; they go when it exits."""
    with _state.LOCK:
        _drop(_EXPLICIT)
        _apply()


def get_mode() -> str:
    """The effective mode: ``"raise"``, ``"warn"`` or ``"off"`` (not installed, or the most
    recent reference is an ``installed("off")`` block)."""
    return _state.mode


@contextlib.contextmanager
def installed(mode: str = "raise") -> Iterator[None]:
    """Context manager holding a reference to the guard in ``mode`` for its body.

    Thread-safe: overlapping blocks in several threads keep the guard installed until the last
    one exits; the mode is that of the most recently entered block still open (else that of
    :func:`install`). ``installed("off")`` turns every wrapper inert while it is the most recent.
    """
    _check_mode(mode)
    holder = object()
    with _state.LOCK:
        _references.append((holder, mode))
        try:
            _apply()
        except BaseException:
            _drop(holder)
            raise
    try:
        yield
    finally:
        with _state.LOCK:
            _drop(holder)
            _apply()


def patched() -> list[tuple[Any, str]]:
    """``(owner, attribute)`` for every attribute currently patched (for diagnostics/tests)."""
    with _state.LOCK:
        return _patching.patched()
