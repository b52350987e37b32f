"""Setting and restoring patched attributes, and telling the guard's own wrappers apart.

Restoring follows ``unittest.mock.patch``: each patched attribute's raw ``__dict__`` value is
recorded (keeping ``staticmethod`` / ``classmethod`` wrappers) and set back, or the attribute is
deleted when it was inherited; but only where the guard's wrapper is still the value in place.
A patch another library stacked on top is left as it is (its inner call reaches the guard's
wrapper, inert from then on).

The guard knows its wrappers by identity (a weak registry from wrapper to original), never by an
attribute: ``functools.wraps`` copies a function's ``__dict__`` onto a user's tracer, so any
marker attribute would make the tracer look like the guard's and get stripped. A wrapper found
where a patch goes (left over from an earlier installation, e.g. restored by a user's
``mock.patch``) is unwrapped first, so installing again never wraps twice.

This module imports no wrapper code: the wrapper factory is passed in, which keeps the import
graph a tree (``install`` -> ``wrappers`` -> ``_patching``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from . import _state
from .patches import Point

__all__ = [
    "patch",
    "patch_points",
    "patched",
    "register_wrapper",
    "restore_all",
    "unpatch",
    "unwrap",
]

_MISSING: Any = object()
Factory = Callable[[Point, Callable[..., Any], _state.Session], Callable[..., Any]]


@dataclass
class _Record:
    owner: Any
    attr: str
    raw: Any  # the owner's own __dict__ value before patching, or _MISSING if inherited
    placed: Any  # what the guard set there: restored only while it is still in place


_records: list[_Record] = []
#: Wrappers by (original, point) for the live session: a function exported from two namespaces
#: gets one wrapper. Holding the original keeps its id unique while it is a key.
_memo: dict[tuple[int, Point], tuple[Any, Any]] = {}
#: Every wrapper the guard made (any session) -> the callable it wraps.
_originals: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def register_wrapper(wrapper: Any, original: Any) -> None:
    """Remember that ``wrapper`` is the guard's, wrapping ``original``."""
    _originals[wrapper] = original


def unwrap(func: Any) -> Any:
    """The original behind the guard's wrappers (or ``func`` itself, including any wrapper
    somebody else put around a guard wrapper)."""
    while True:
        try:
            original = _originals.get(func)
        except TypeError:  # unhashable or not weak-referenceable: not ours
            return func
        if original is None:
            return func
        func = original


def patch(owner: Any, point: Point, factory: Factory, session: _state.Session) -> bool:
    """Replace ``owner.<point.attr>`` with a wrapper; False when there is nothing to wrap."""
    if any(r.owner is owner and r.attr == point.attr for r in _records):
        return True  # two paths to one class or module
    raw = vars(owner).get(point.attr, _MISSING)
    current = getattr(owner, point.attr, _MISSING) if raw is _MISSING else raw
    if current is _MISSING:
        return False
    kind = type(current) if isinstance(current, (staticmethod, classmethod)) else None
    func = unwrap(current.__func__ if kind is not None else current)
    if not callable(func):
        return False
    key = (id(func), point)
    if key not in _memo:
        _memo[key] = (func, factory(point, func, session))
    wrapper = _memo[key][1]
    placed = kind(wrapper) if kind is not None else wrapper
    setattr(owner, point.attr, placed)
    _records.append(_Record(owner, point.attr, raw, placed))
    return True


def patch_points(
    resolve: Callable[[str], Any],
    points: Iterable[Point],
    factory: Factory,
    session: _state.Session,
) -> list[str]:
    """:func:`patch` every owner of every point (``resolve`` finds an owner by its dotted
    path); return the dotted names of the targets not found, the optional ones marked."""
    missing = []
    for point in points:
        for path in point.owners:
            owner = resolve(path)
            if owner is None or not patch(owner, point, factory, session):
                note = " (optional: absent from some releases)" if point.optional else ""
                missing.append(f"{path}.{point.attr}{note}")
    return missing


def unpatch(owner: Any, attr: str) -> None:
    """Put one patched attribute back exactly as it was (no-op when it is not patched)."""
    for index in range(len(_records) - 1, -1, -1):
        record = _records[index]
        if record.owner is owner and record.attr == attr:
            del _records[index]
            _put_back(record)
            return


def is_patched(owner: Any) -> bool:
    """Whether any attribute of ``owner`` is currently patched."""
    return any(r.owner is owner for r in _records)


def restore_all() -> None:
    """Put every patched attribute back exactly as it was, newest first."""
    while _records:
        _put_back(_records.pop())
    _memo.clear()


def _put_back(record: _Record) -> None:
    """Restore one attribute, if the guard's wrapper is still the one in place. Another
    library's patch stacked on top since (``transfer_to_npu`` wrapping ``Tensor.to`` after the
    guard armed, a ``mock.patch`` still active) stays: removing it would undo that library's
    work too (issue 40). The guard's wrapper it holds is inert once the session ends."""
    owner, attr = record.owner, record.attr
    if vars(owner).get(attr, _MISSING) is not record.placed:
        return
    if record.raw is _MISSING:
        delattr(owner, attr)
    else:
        setattr(owner, attr, record.raw)


def patched() -> list[tuple[Any, str]]:
    """``(owner, attribute)`` for every attribute currently patched."""
    return [(r.owner, r.attr) for r in _records]
