"""Method resolution order: the order in which Python looks an attribute up on a class.

Kept apart from :mod:`.values` (which holds the classes) so that it reads as the algorithm it
is: CPython's C3 linearisation (``Objects/typeobject.c``, ``mro_internal``), over any class
record with a ``bases`` list.
"""

from __future__ import annotations

import os
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
    seen = {id(cls)}
    current = cls
    while len(current.bases) == 1 and len(chain) < 64:  # single inheritance: the chain
        current = current.bases[0]
        if id(current) in seen:
            return chain
        seen.add(id(current))
        chain.append(current)
    if not current.bases:
        return chain
    if len(current.bases) == 1:
        # A single-inheritance chain past 64 classes: what _c3 gives it (it stops
        # _C3_DEPTH + 1 bases down) without its merges, each as long as the chain.
        return chain[: _C3_DEPTH + 2]
    return _c3(cls, (), {})


#: How many classes deep C3 follows the bases (then a class stands for itself alone).
_C3_DEPTH = 40


def _c3(cls: Klass, visiting: tuple[Klass, ...], memo: dict[int, list[Klass]]) -> list[Klass]:
    if not cls.bases or len(visiting) > _C3_DEPTH or any(cls is seen for seen in visiting):
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


# --- when a kept MRO still holds ---------------------------------------------------------
# A class keeps its MRO (``ClassInfo.mro``); it holds while no class's bases changed since.
# Checking that by walking the kept order made every attribute lookup as long as the MRO,
# and each subclass's views look every inherited name up (issue 43: deep hierarchies).
# Instead, one stamp for the process, moved on whenever some class gets other bases: a kept
# MRO made under the current stamp holds. The stamp is pickled with the MRO (cache entries)
# and starts from a random number per process (and per forked worker), so a kept order
# from another process never passes for current.

_STAMP: list[tuple[int, int]] = []


def _fresh_process() -> None:
    _STAMP[:] = [(int.from_bytes(os.urandom(8), "big"), 0)]


_fresh_process()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_process)


def bases_stamp() -> tuple[int, int]:
    """The current stamp: what a kept MRO made now is kept with."""
    return _STAMP[0]


def bases_changed(old: list | None, new: list) -> None:  # type: ignore[type-arg]
    """A class's bases are replaced by ``new``: if they differ (by identity, in order),
    every MRO kept so far may be stale."""
    if old is None or len(old) != len(new) or any(a is not b for a, b in zip(old, new)):
        nonce, count = _STAMP[0]
        _STAMP[0] = (nonce, count + 1)
