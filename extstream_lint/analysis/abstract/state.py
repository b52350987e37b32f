"""What the interpreter knows at one program point: the bindings and the current stream.

Values and how two of them merge are :mod:`.values`; a state is the interpreter's, one per
program point, joined where control flow joins (:func:`join_states`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .values import Current, Instance, Value, join, join_all, join_current

__all__ = ["State", "join_states"]


class Env(dict):  # type: ignore[type-arg]
    """The bindings of a state (name or dotted path -> value), indexed by path prefix.

    Rebinding ``b`` forgets ``b.x`` and ``b.x.y``; scanning every key for them made ``b.a1 =
    b.a0`` ... ``b.aN = ...`` quadratic (issue 43). The index is built at the first such
    question and kept by every write after it: each dotted key under each of its prefixes
    (``a.b.c`` under ``a`` and ``a.b``), so the keys under a prefix are exactly those that
    start with it and a dot."""

    __slots__ = ("_under",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._under: dict[str, set[str]] | None = None

    def under(self, name: str) -> list[str]:
        """The keys that start with ``name`` and a dot."""
        index = self._under
        if index is None:
            index = self._under = {}
            for key in self:
                _index(index, key)
        found = index.get(name)
        return list(found) if found else []

    def __setitem__(self, key: str, value: Value) -> None:
        if self._under is not None and key not in self:
            _index(self._under, key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        if self._under is not None:
            _unindex(self._under, key)

    def update(self, *args: object, **kwargs: object) -> None:
        super().update(*args, **kwargs)
        self._under = None  # rebuilt when next asked

    def pop(self, key: str, *default: object) -> object:
        self._under = None
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Value]:
        self._under = None
        return super().popitem()

    def setdefault(self, key: str, default: Value = None) -> Value:
        self._under = None
        return super().setdefault(key, default)

    def clear(self) -> None:
        self._under = None
        super().clear()

    def __ior__(self, other: object) -> Env:  # type: ignore[override,misc]
        self.update(other)
        return self

    def copy(self) -> Env:
        return Env(self)


def _index(index: dict[str, set[str]], key: str) -> None:
    at = key.find(".")
    while at >= 0:
        index.setdefault(key[:at], set()).add(key)
        at = key.find(".", at + 1)


def _unindex(index: dict[str, set[str]], key: str) -> None:
    at = key.find(".")
    while at >= 0:
        keys = index.get(key[:at])
        if keys is not None:
            keys.discard(key)
        at = key.find(".", at + 1)


@dataclass
class State:
    """What is known at one program point: the bindings and the current stream."""

    env: dict[str, Value]
    current: Current | None = None
    #: Some key is a dotted path (``self.x``): rebinding ``self`` must forget it.
    has_paths: bool = False

    def __post_init__(self) -> None:
        if type(self.env) is not Env:
            self.env = Env(self.env)

    def copy(self) -> State:
        return State(Env(self.env), self.current, self.has_paths)

    def set_path(self, key: str, value: Value) -> None:
        """Bind an attribute path and forget the longer paths under it."""
        self.forget_paths_under(key)
        self.env[key] = value
        self.has_paths = True

    def forget_paths_under(self, name: str) -> None:
        if self.has_paths:
            env = self.env
            if type(env) is not Env:  # a caller replaced the mapping: index it
                env = self.env = Env(env)
            for key in env.under(name):
                del env[key]


def join_states(states: list[State | None]) -> State | None:
    """Join of the reachable states; ``None`` when none is reachable."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0].copy()
    first = live[0]
    env: dict[str, Value] = {}
    keys = set(first.env)
    for other in live[1:]:
        keys |= set(other.env)
    if len(live) == 2:  # an ``if`` and its ``else``: most bindings are the same object
        # each side over every key (None where unbound), read by subscript: two calls per
        # side, not a ``get`` per binding (580,000 calls on the stdlib overlay)
        mine, theirs = dict.fromkeys(keys), dict.fromkeys(keys)
        mine.update(first.env)
        theirs.update(live[1].env)
        for key in keys:
            a, b = mine[key], theirs[key]
            env[key] = a if a is b else _read_through(key, live) or join(a, b)
    else:
        for key in keys:
            env[key] = _read_through(key, live) or join_all([s.env.get(key) for s in live])
    current = first.current
    for other in live[1:]:
        current = join_current(current, other.current)
    return State(env, current, any(s.has_paths for s in live))


def _read_through(key: str, live: list[State]) -> Instance | None:
    """An attribute path (``self.aux``) bound on some paths only to an object, read through
    its owner on the others: the same object there (a method it was given set its fields:
    ``with self.aux:`` whose ``__enter__`` stores ``self._ctx``, in a loop), not unknown."""
    if "." not in key or not any(key not in s.env for s in live):
        return None
    held = [s.env[key] for s in live if key in s.env]
    first = held[0]
    if not isinstance(first, Instance) or any(
        not isinstance(h, Instance) or h.cls is not first.cls for h in held
    ):
        return None
    return join_all(held)  # type: ignore[return-value]
