"""Pure methods of ``str`` folded on a literal (issue 43, item 9: a literal decides the callee).

A short string literal keeps its text (:mod:`.expressions`), so ``spec.split(":")`` with
``spec`` a literal a copy of the summary was learnt with (:mod:`.constants`) is the list of
its parts and ``match spec.split(":"): case ["external", dev]:`` picks its case. Only methods
whose result depends on nothing but the receiver and literal arguments are folded; ``""``
stands for "some string" and is never folded (nor is any argument that is not a literal).
"""

from __future__ import annotations

from ..abstract.atoms import Const
from ..abstract.values import Seq, Value
from ..semantics.sites import CallSite

#: The methods folded, each with the number of positional arguments it takes at most.
_METHODS: dict[str, int] = {
    "split": 2,
    "rsplit": 2,
    "partition": 1,
    "rpartition": 1,
    "lower": 0,
    "upper": 0,
    "casefold": 0,
    "strip": 1,
    "lstrip": 1,
    "rstrip": 1,
    "startswith": 1,
    "endswith": 1,
    "removeprefix": 1,
    "removesuffix": 1,
    "replace": 2,
    "isdigit": 0,
    "isalpha": 0,
}

#: Longest result kept (as :mod:`.expressions` keeps literals).
_MAX_TEXT = 80


def folds(receiver: Value, method: str) -> bool:
    """``receiver.method(...)`` is one :func:`fold` may decide."""
    return (
        isinstance(receiver, Const)
        and type(receiver.value) is str
        and receiver.value != ""
        and method in _METHODS
    )


def fold(receiver: Const, method: str, site: CallSite) -> Value:
    """What the call returns when every argument is a known literal, else ``None``."""
    if site.keywords or site.star_at is not None or site.double_star:
        return None
    if len(site.positional) > _METHODS[method]:
        return None
    args: list[object] = []
    for arg in site.positional:
        value = arg.value
        if not isinstance(value, Const) or type(value.value) not in (str, int):
            return None
        if value.value == "":
            return None  # "some string"
        args.append(value.value)
    try:
        result = getattr(receiver.value, method)(*args)
    except (TypeError, ValueError):
        return None
    return _value(result)


def _value(result: object) -> Value:
    if type(result) is bool:
        return Const(result)
    if type(result) is str:
        return Const(result) if 0 < len(result) <= _MAX_TEXT else None
    if type(result) in (list, tuple):
        items = [_value(item) for item in result]  # type: ignore[attr-defined]
        if len(items) > 8 or any(item is None for item in items):
            return None
        return Seq(tuple(items))
    return None


__all__ = ["fold", "folds"]
