"""Frozen records that cost less to build, compare and copy.

The analysis builds millions of small immutable values per run (a symbolic stream for every
parameter path read, a ``ParamRef`` per step, a ``Tensor`` per value computed under a
stream). A frozen dataclass's generated ``__init__`` sets each field through
``object.__setattr__`` (its way around its own ``__setattr__``, which refuses): on the
standard library with every file analysed, a tenth of the run went to those ``__init__``
calls, and a twentieth to ``dataclasses.replace`` and ``__eq__``.

:func:`fast_frozen` keeps the dataclass exactly as declared (fields, defaults, ``repr``,
``hash``, ``compare=False`` fields, pickling, the refusal to assign) and replaces three
things with equivalents that write the instance's ``__dict__`` directly: ``__init__``,
``__eq__`` (identity first, then the compared fields) and :func:`replace`. It refuses a class
it cannot make faster faithfully (``__slots__``, ``__post_init__``, ``InitVar``, fields not
in ``__init__``). Written here rather than taken from a library: ``attrs`` does the same for
its frozen classes, but it is not a dependency of this project, and the stdlib's
``dataclasses`` has no such option.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["fast_frozen", "replace"]

T = TypeVar("T")

#: Per class made fast: the names of its fields (``replace`` checks the changes against it).
_FIELDS: dict[type, frozenset[str]] = {}


def fast_frozen(cls: type[T]) -> type[T]:
    """Make a frozen dataclass (already decorated) cheaper to build, compare and copy."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if (
        not params.frozen
        or "__slots__" in cls.__dict__
        or hasattr(cls, "__post_init__")
        or any(not f.init for f in fields)
        or len(fields) != len(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    ):
        raise TypeError(f"{cls.__name__}: not a plain frozen dataclass")
    namespace: dict[str, Any] = {"MISSING": dataclasses.MISSING}
    signature, stores = [], []
    for index, f in enumerate(fields):
        if f.default is not dataclasses.MISSING:
            namespace[f"_d{index}"] = f.default
            signature.append(f"{f.name}=_d{index}")
            stores.append(f"    state[{f.name!r}] = {f.name}\n")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_f{index}"] = f.default_factory
            signature.append(f"{f.name}=MISSING")
            value = f"_f{index}() if {f.name} is MISSING else {f.name}"
            stores.append(f"    state[{f.name!r}] = {value}\n")
        else:
            signature.append(f.name)
            stores.append(f"    state[{f.name!r}] = {f.name}\n")
    compared = [f.name for f in fields if f.compare]
    mine = "".join(f"self.{name}, " for name in compared)
    theirs = "".join(f"other.{name}, " for name in compared)
    source = (
        f"def __init__(self, {', '.join(signature)}):\n"
        "    state = self.__dict__\n"
        f"{''.join(stores)}"
        "def __eq__(self, other):\n"
        "    if self is other:\n"
        "        return True\n"
        "    if other.__class__ is not self.__class__:\n"
        "        return NotImplemented\n"
        f"    return ({mine}) == ({theirs})\n"
    )
    exec(source, namespace)  # the technique dataclasses itself uses to write __init__
    for name in ("__init__", "__eq__"):
        function = namespace[name]
        function.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, function)
    _FIELDS[cls] = frozenset(f.name for f in fields)
    return cls


def replace(obj: T, **changes: Any) -> T:
    """``dataclasses.replace`` for any dataclass; for a :func:`fast_frozen` one, a copy of
    its ``__dict__`` with the changes (what its ``__init__`` would store)."""
    names = _FIELDS.get(type(obj))
    if names is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    if not names.issuperset(changes):
        unknown = sorted(set(changes) - names)
        raise TypeError(f"{type(obj).__name__} has no field {unknown[0]!r}")
    new = object.__new__(type(obj))
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new
