"""Widening a recursive function's return where it grows along a parameter's path.

``def unwrap(f): return unwrap(f.__wrapped__) if hasattr(f, "__wrapped__") else f`` returns
``f`` in the first learning pass (its own summary blank), ``f`` or ``f.__wrapped__`` in the
second, one more step in each pass after, until :data:`.paths.MAX_PATH` or the cap of
passes: each pass applied a summary that moved, so every importer's lint ran the module's
passes to the cap (inspect's ``_signature_from_callable`` through ``functools.partial``,
issue 38). As points-to analyses bound access paths, a path that grows from one pass to
the next in a recursive function is cut to :data:`REACHED`, "any value reached from here"
(the path so far, then any steps, none included): the next pass gives the same value, and
the passes stop. Applying it (:func:`reached`) walks every object the caller's value holds.
"""

from __future__ import annotations

from collections.abc import Callable

from .atoms import REACHED, ExtStream, ParamRef
from .values import FunctionInfo, Instance, Seq, Value, join_all

__all__ = ["REACHED", "reached", "widened"]

#: How deep :func:`reached` looks into the caller's objects (:data:`.paths.MAX_PATH`).
_DEPTH = 6


def _covers(wide: ParamRef, ref: ParamRef) -> bool:
    """Whether ``wide`` (ending in :data:`REACHED`) stands for ``ref`` too."""
    if wide.owner is not ref.owner or wide.index != ref.index:
        return False
    stem = wide.path[:-1]
    return ref.path[: len(stem)] == stem and ref.path != wide.path


def widened(
    before: Value, after: Value, owner: FunctionInfo, recursive: Callable[[FunctionInfo], bool]
) -> Value:
    """``after``, what ``owner`` returns in this pass, with each of its own parameter paths
    that grew from one it returned in the previous pass (``before``) cut (:func:`_cut`), and
    every path a widened one stands for dropped; when ``owner`` is ``recursive`` (asked only
    once a path grew)."""
    if type(after) is not ExtStream or after.param is None or type(before) is not ExtStream:
        return after
    old = [ref for ref in before.refs() if ref.owner is owner and ref.index >= 0]
    new = after.refs()
    cuts = {ref: _cut(ref, old) for ref in new if ref.owner is owner and ref.index >= 0}
    if not any(cut is not None for cut in cuts.values()) or not recursive(owner):
        return after
    kept = [cuts.get(ref) or ref for ref in new]
    wide = [ref for ref in kept if ref.path[-1:] == _WIDE]
    refs = tuple(dict.fromkeys(ref for ref in kept if not any(_covers(w, ref) for w in wide)))
    if refs == new:
        return after
    if set(refs) == set(before.refs()) and not before.must and before.device == after.device:
        return before  # what it returned in the previous pass: callers need not look again
    return ExtStream(False, after.how, None, param=refs[0], also=refs[1:], device=after.device)


_WIDE = (REACHED,)


def _cut(ref: ParamRef, old: list[ParamRef]) -> ParamRef | None:
    """``ref`` widened, if it grew from a path in ``old``: one a widened path there stands
    for is that path; one that extends a path ``q`` (``q.next``, a recursion on the
    result's attribute) is ``q`` then :data:`REACHED`; one that is a path ``q`` after more
    steps ``s`` (``s.q``, a recursion on the parameter's attribute ``s``) is ``s`` then
    :data:`REACHED`. ``None`` when it did not grow."""
    path = ref.path
    for prior in old:
        if prior.index != ref.index or prior == ref:
            continue
        known = prior.path
        if known[-1:] == _WIDE:
            if _covers(prior, ref):
                return prior
            continue
        size = len(known)
        if size < len(path) and path[:size] == known:
            return ParamRef(ref.owner, ref.index, (*known, REACHED))
        if size and size < len(path) and path[-size:] == known:
            return ParamRef(ref.owner, ref.index, (*path[:-size], REACHED))
    return None


def reached(value: Value) -> Value:
    """A caller's value at a :data:`REACHED` step: it, or any stream it holds (an object's
    fields, a container's elements, :data:`_DEPTH` deep), on some paths."""
    streams: list[Value] = []
    _held(value, streams, _DEPTH)
    return join_all([value, *streams]) if streams else value


def _held(value: Value, streams: list[Value], depth: int) -> None:
    kind = type(value)
    if kind is ExtStream:
        streams.append(value)
    elif not depth:
        return
    elif kind is Instance:
        for _, field in value.fields:  # type: ignore[union-attr]
            _held(field, streams, depth - 1)
    elif kind is Seq:
        for item in (*value.items, *(v for _, v in value.keys), value.default):  # type: ignore[union-attr]
            _held(item, streams, depth - 1)
