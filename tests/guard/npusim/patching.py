"""Attributes the simulation sets on torch's classes, each with what it replaced.

The kernel and distributed simulations both replace methods of torch classes while they
are active and must put back exactly what was there: the class's own attribute, or
nothing (then the inherited one shows through again).
"""

from __future__ import annotations

from typing import Any

#: What a class had as its own attribute when it had none.
MISSING = object()


class Patches:
    """Attributes set on classes while a simulation is active; :meth:`undo` restores them."""

    def __init__(self) -> None:
        self._saved: dict[tuple[Any, str], Any] = {}

    def __bool__(self) -> bool:
        return bool(self._saved)

    def set(self, owner: Any, name: str, value: Any) -> None:
        """``owner.name = value``, remembering the first value replaced."""
        self._saved.setdefault((owner, name), vars(owner).get(name, MISSING))
        setattr(owner, name, value)

    def undo(self) -> None:
        """Put back every attribute replaced, or remove it where the class had none."""
        for (owner, name), value in self._saved.items():
            if value is MISSING:
                if name in vars(owner):
                    delattr(owner, name)
            else:
                setattr(owner, name, value)
        self._saved.clear()
