"""What the interpreter knows at one program point: the bindings and the current stream.

Values and how two of them merge are :mod:`.values`; a state is the interpreter's, one per
program point, joined where control flow joins (:func:`join_states`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .values import Current, Instance, Value, join, join_all, join_current

__all__ = ["State", "join_states"]


class Env(dict):  # type: ignore[type-arg]
    """The bindings of a state (name or dotted path -> value); indexed by path prefix once
    asked for the keys under one (:meth:`under`).

    Rebinding ``b`` forgets ``b.x`` and ``b.x.y``; scanning every key for them made ``b.a1 =
    b.a0`` ... ``b.aN = ...`` quadratic (issue 43). The first such question builds the index
    (each dotted key under each of its prefixes: ``a.b.c`` under ``a`` and ``a.b``, so the
    keys under a prefix are exactly those that start with it and a dot) and makes the
    mapping an :class:`_IndexedEnv`, whose writes keep it. Until then an ``Env`` is a plain
    dictionary: made, copied and written in C (most states never ask)."""

    __slots__ = ("_under",)

    def under(self, name: str) -> list[str]:
        """The keys that start with ``name`` and a dot."""
        index: dict[str, set[str]] = {}
        for key in self:
            _index(index, key)
        self._under = index
        self.__class__ = _IndexedEnv
        found = index.get(name)
        return list(found) if found else []

    def copy(self) -> Env:
        return Env(self)


class _IndexedEnv(Env):
    """An :class:`Env` that keeps its index of keys by prefix through every write; a bulk
    write drops the index (the mapping is a plain :class:`Env` again, indexed when next
    asked)."""

    __slots__ = ()
    _under: dict[str, set[str]]

    def under(self, name: str) -> list[str]:
        found = self._under.get(name)
        return list(found) if found else []

    def __setitem__(self, key: str, value: Value) -> None:
        if key not in self:
            _index(self._under, key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        _unindex(self._under, key)

    def _unindexed(self) -> None:  # a plain dictionary again: written as ``dict.``
        del self._under
        self.__class__ = Env

    def update(self, *args: object, **kwargs: object) -> None:
        self._unindexed()
        dict.update(self, *args, **kwargs)

    def pop(self, key: str, *default: object) -> object:
        self._unindexed()
        return dict.pop(self, key, *default)

    def popitem(self) -> tuple[str, Value]:
        self._unindexed()
        return dict.popitem(self)

    def setdefault(self, key: str, default: Value = None) -> Value:
        self._unindexed()
        return dict.setdefault(self, key, default)

    def clear(self) -> None:
        self._unindexed()
        dict.clear(self)

    def __ior__(self, other: object) -> Env:  # type: ignore[override,misc]
        self.update(other)
        return self


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

    def __init__(
        self, env: dict[str, Value], current: Current | None = None, has_paths: bool = False
    ) -> None:  # the dataclass's, with the mapping made an :class:`Env` (no second call)
        self.env = env if isinstance(env, Env) else Env(env)
        self.current = current
        self.has_paths = has_paths

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
            if not isinstance(env, Env):  # a caller replaced the mapping: index it
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
