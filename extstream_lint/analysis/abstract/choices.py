"""A name that is one of several functions, classes or modules, depending on the path taken.

Python binds a name to whatever the path that ran bound it to: ``f = a if c else b``,
``if c: def f(...)`` / ``else: def f(...)``, ``try: from fast import f`` / ``except
ImportError: from slow import f``, ``ops[key]`` of a dict of functions with an unknown key.
A call of that name calls whichever it is. Joining two different functions into "unknown"
(what :func:`.values.join` did) made every such call silent; a :class:`OneOf` keeps them
all, and the interpreter calls each (:mod:`.interp.alternatives`) and joins what the calls
do: a finding only some of them reach is a "may", as a stream external on some paths is.

Kept apart from :mod:`.values` (which imports it) so that :class:`.callables.Closure`, which
:mod:`.values` cannot import, can say it is a callee too (:class:`Callee`). Pure data,
pickled with the summaries (``project/safe_pickle.py`` lists this module).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_OPTIONS", "Callee", "OneOf", "either"]

#: At most this many alternatives: a join of more is "unknown" again, so a call costs at
#: most this many calls, whatever a loop or a table of handlers accumulates.
MAX_OPTIONS = 8


class Callee:
    """A value a call dispatches on that has no kind of its own in :mod:`.values` (a
    :class:`OneOf`, a :class:`.callables.Closure`): it may be one alternative of a join."""

    __slots__ = ()


@dataclass(frozen=True, eq=False)
class OneOf(Callee):
    """One of ``options`` (functions, classes, modules, bound methods, partials, torch
    names, objects of different classes: ``for cb in [Timer(), Logger()]``), never fewer
    than two, ordered by kind and name (:func:`_rank`); equal to another of the same
    options in any order (a join's result must not depend on which path came first)."""

    options: tuple[object, ...]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OneOf) or len(other.options) != len(self.options):
            return False
        return all(option in other.options for option in self.options)

    def __hash__(self) -> int:
        return hash(("OneOf", len(self.options)))


def either(a: object, b: object) -> OneOf | None:
    """The join of two different callees: a :class:`OneOf` of both (flattened), or ``None``
    beyond :data:`MAX_OPTIONS` alternatives."""
    options = list(a.options) if isinstance(a, OneOf) else [a]
    for option in b.options if isinstance(b, OneOf) else (b,):
        if option not in options:
            options.append(option)
    if len(options) > MAX_OPTIONS:
        return None
    options.sort(key=_rank)  # stable: the same options give the same digest, in any order
    return OneOf(tuple(options)) if len(options) > 1 else None


def _rank(option: object) -> tuple[str, str]:
    """Kind and name: the order of a join's alternatives, whichever path came first, so
    that a summary holding one has one digest and an import cycle settles (a digest that
    moved with the order of two paths would summarise its readers again)."""
    name = getattr(option, "qualname", None) or getattr(option, "name", None)
    if name is None:  # a bound method or partial: its function's; an object: its class's
        name = getattr(getattr(option, "func", None), "name", None)
        name = getattr(getattr(option, "cls", None), "name", "") if name is None else name
    return type(option).__name__, str(name)
