"""Method resolution order: the order in which Python looks an attribute up on a class.

Kept apart from :mod:`.values` (which holds the classes) so that it reads as the algorithm it
is: CPython's C3 linearisation (``Objects/typeobject.c``, ``mro_internal``), over any class
record with a ``bases`` list.
"""

from __future__ import annotations

from typing import Protocol, TypeVar


class _HasBases(Protocol):
    @property
    def bases(self) -> list: ...  # type: ignore[type-arg]


Klass = TypeVar("Klass", bound=_HasBases)


def linearise(cls: Klass) -> list[Klass]:
    """``cls.__mro__`` as CPython computes it (C3: each class before its bases, bases in
    declaration order, a class shared by two bases after both). Where C3 has no answer
    (CPython would refuse the class) or the bases loop, depth first, each class once."""
    chain = [cls]
    current = cls
    while len(current.bases) == 1 and len(chain) < 64:  # single inheritance: the chain
        current = current.bases[0]
        if any(current is seen for seen in chain):
            return chain
        chain.append(current)
    if not current.bases:
        return chain
    return _c3(cls, (), {})


def _c3(cls: Klass, visiting: tuple[Klass, ...], memo: dict[int, list[Klass]]) -> list[Klass]:
    if not cls.bases or len(visiting) > 40 or any(cls is seen for seen in visiting):
        return [cls]
    known = memo.get(id(cls))
    if known is not None:
        return known
    inner = (*visiting, cls)
    pending = [list(_c3(base, inner, memo)) for base in cls.bases]
    pending.append(list(cls.bases))
    order = [cls]
    while True:
        pending = [seq for seq in pending if seq]
        if not pending:
            memo[id(cls)] = order
            return order
        for seq in pending:
            head = seq[0]
            if not any(head is other for rest in pending for other in rest[1:]):
                break
        else:
            return _depth_first(cls)
        order.append(head)
        pending = [seq[1:] if seq[0] is head else seq for seq in pending]


def _depth_first(cls: Klass) -> list[Klass]:
    order: list[Klass] = []
    stack: list[Klass] = [cls]
    while stack:
        current = stack.pop(0)
        if any(current is seen for seen in order):
            continue
        order.append(current)
        stack[0:0] = current.bases
    return order
