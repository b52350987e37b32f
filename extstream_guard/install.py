"""Install / uninstall the guard: apply every row of :data:`patches.POINTS`, restore exactly.

Restoring follows ``unittest.mock.patch``: each patched attribute's raw ``__dict__`` value is
recorded (keeping ``staticmethod`` / ``classmethod`` wrappers) and set back, or the attribute is
deleted when it was inherited. Installing twice is a no-op (the mode may change); everything runs
under one ``RLock``.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from . import _state, _torch_npu
from .patches import POINTS, WORK_POINTS, Point
from .wrappers import make_wrapper

__all__ = ["MODES", "get_mode", "install", "installed", "patched", "uninstall", "watch_work"]

MODES = ("raise", "warn", "off")
_MISSING: Any = object()


@dataclass
class _Record:
    owner: Any
    attr: str
    raw: Any  # the owner's own __dict__ value before patching, or _MISSING if inherited
    new: Any
    point: Point


_records: list[_Record] = []
#: Wrappers by (original, point): a function exported from two namespaces gets one wrapper.
_memo: dict[tuple[int, Point], tuple[Any, Any]] = {}


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"extstream_guard mode must be one of {', '.join(MODES)}, not {mode!r}")
    return mode


def _resolve(path: str) -> Any:
    """The object at dotted ``path`` (attribute access first, then ``sys.modules``)."""
    root, *rest = path.split(".")
    obj: Any = sys.modules.get(root)
    for part in rest:
        if obj is None:
            break
        obj = getattr(obj, part, None)
    return obj if obj is not None else sys.modules.get(path)


def _patch(owner: Any, point: Point) -> None:
    if any(r.owner is owner and r.attr == point.attr for r in _records):
        return  # two paths to one class or module
    raw = vars(owner).get(point.attr, _MISSING)
    current = getattr(owner, point.attr, _MISSING) if raw is _MISSING else raw
    if current is _MISSING:
        return
    kind = type(current) if isinstance(current, (staticmethod, classmethod)) else None
    func = current.__func__ if kind is not None else current
    if not callable(func):
        return
    key = (id(func), point)
    if key not in _memo:
        _memo[key] = (func, make_wrapper(point, func))  # keeps func alive: ids stay unique
    wrapper = _memo[key][1]
    new = kind(wrapper) if kind is not None else wrapper
    setattr(owner, point.attr, new)
    _records.append(_Record(owner, point.attr, raw, new, point))


def _restore_all() -> None:
    while _records:
        record = _records.pop()
        if record.raw is _MISSING:
            if record.attr in vars(record.owner):
                delattr(record.owner, record.attr)
        else:
            setattr(record.owner, record.attr, record.raw)
    _memo.clear()


def _install_locked(mode: str) -> None:
    if _state.mode != "off":
        _state.mode = mode
        return
    torch_npu = _torch_npu.load()
    torch = sys.modules["torch"]
    _state.torch_npu, _state.torch = torch_npu, torch
    _state.npu_device_type = torch._C._get_privateuse1_backend_name()
    _state.external_class = getattr(torch_npu.npu, "ExternalStream", None)
    distributed = getattr(torch, "distributed", None)
    _state.work_base = getattr(distributed, "Work", None)
    _state.mode = mode
    try:
        for point in POINTS:
            if point.subclass_only:
                continue
            for path in point.owners:
                owner = _resolve(path)
                if owner is not None:
                    _patch(owner, point)
    except BaseException:
        _restore_all()
        _state.mode = "off"
        raise


def install(mode: str = "raise") -> None:
    """Patch torch_npu (and torch.distributed) so unsupported calls fail early and precisely.

    ``mode``: ``"raise"`` an :class:`ExternalStreamError`, ``"warn"`` (an
    :class:`ExternalStreamWarning` with the same text, then the call goes through) or ``"off"``
    (same as :func:`uninstall`). Idempotent; calling it again only changes the mode. Imports
    torch_npu, with a clear ImportError when it is not installed.
    """
    _check_mode(mode)
    with _state.LOCK:
        if mode == "off":
            uninstall()
        else:
            _install_locked(mode)


def uninstall() -> None:
    """Restore every patched attribute exactly as it was. A no-op when not installed."""
    with _state.LOCK:
        _restore_all()
        _state.mode = "off"


def get_mode() -> str:
    """The current mode: ``"raise"``, ``"warn"`` or ``"off"`` (not installed)."""
    return _state.mode


@contextlib.contextmanager
def installed(mode: str = "raise") -> Iterator[None]:
    """Context manager: the guard in ``mode`` inside, the previous state restored after."""
    _check_mode(mode)
    with _state.LOCK:
        previous = _state.mode
        install(mode)
    try:
        yield
    finally:
        install(previous)


def patched() -> list[tuple[Any, str]]:
    """``(owner, attribute)`` for every attribute currently patched (for diagnostics/tests)."""
    with _state.LOCK:
        return [(r.owner, r.attr) for r in _records]


def watch_work(result: Any) -> None:
    """Guard ``wait``/``synchronize`` of the class of works returned by an NPU collective.

    Only backend-specific work classes are patched (``WorkHCCL`` and the like): the base
    ``torch.distributed.Work`` is shared with gloo and others, whose waits must stay unchecked.
    """
    works = result if isinstance(result, (list, tuple)) else (result,)
    for work in works:
        cls = type(work)
        if cls is _state.work_base or not hasattr(cls, "wait"):
            continue
        if any(r.owner is cls for r in _records):
            continue
        with _state.LOCK:
            if _state.mode == "off":
                return
            for point in WORK_POINTS:
                _patch(cls, point)
