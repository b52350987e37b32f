"""What the interpreter knows at one program point: the bindings and the current stream.

Values and how two of them merge are :mod:`.values`; a state is the interpreter's, one per
program point, joined where control flow joins (:func:`join_states`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .values import Current, Value, join_all, join_current

__all__ = ["State", "join_states"]


@dataclass
class State:
    """What is known at one program point: the bindings and the current stream."""

    env: dict[str, Value]
    current: Current | None = None
    #: Some key is a dotted path (``self.x``): rebinding ``self`` must forget it.
    has_paths: bool = False

    def copy(self) -> State:
        return State(dict(self.env), self.current, self.has_paths)

    def set_path(self, key: str, value: Value) -> None:
        """Bind an attribute path and forget the longer paths under it."""
        self.forget_paths_under(key)
        self.env[key] = value
        self.has_paths = True

    def forget_paths_under(self, name: str) -> None:
        if self.has_paths:
            prefix = name + "."
            for key in [k for k in self.env if k.startswith(prefix)]:
                del self.env[key]


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
    for key in keys:
        env[key] = join_all([s.env.get(key) for s in live])
    current = first.current
    for other in live[1:]:
        current = join_current(current, other.current)
    return State(env, current, any(s.has_paths for s in live))
