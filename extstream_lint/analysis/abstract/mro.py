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
    return linearise_kept(cls)[0]


#: A kept MRO's shape (:func:`linearise_kept`): a single-inheritance chain to a class with
#: no bases, the first ``_C3_DEPTH + 2`` classes of a longer one, or anything else.
WHOLE_CHAIN, CUT_CHAIN, OTHER = 0, 1, 2

#: How many classes of a single-inheritance chain are walked before it is cut.
_CHAIN_CAP = 64


def linearise_kept(cls: Klass, stamp: object = None) -> tuple[list[Klass], int]:
    """:func:`linearise`, and the shape of the order (``WHOLE_CHAIN``, ``CUT_CHAIN``,
    ``OTHER``), kept with the order (``_mro``: stamp, order, shape). Given the current
    ``stamp``, a class with one base whose MRO is kept under it extends that order
    (:func:`extend_chain`) instead of walking the chain again."""
    if stamp is not None and len(cls.bases) == 1:
        base = cls.bases[0]
        if not base.bases:
            return [cls, base], WHOLE_CHAIN
        held = base.__dict__.get("_mro")
        if held is not None and held[0] == stamp and len(held) > 2:
            made = extend_chain(cls, held[1], held[2])
            if made is not None:
                return made
    chain = [cls]
    seen = {id(cls)}
    current = cls
    while len(current.bases) == 1 and len(chain) < _CHAIN_CAP:  # single inheritance
        current = current.bases[0]
        if id(current) in seen:
            return chain, OTHER
        seen.add(id(current))
        chain.append(current)
    if not current.bases:
        return chain, WHOLE_CHAIN
    if len(current.bases) == 1:
        # A single-inheritance chain past 64 classes: what _c3 gives it (it stops
        # _C3_DEPTH + 1 bases down) without its merges, each as long as the chain.
        return chain[: _C3_DEPTH + 2], CUT_CHAIN
    return _c3(cls, (), {}), OTHER


def extend_chain(
    cls: Klass, base_order: list[Klass], base_shape: int
) -> tuple[list[Klass], int] | None:
    """:func:`linearise_kept` of ``cls``, whose one base's current MRO is ``base_order``
    of shape ``base_shape``, without walking the chain again: ``[cls]`` then the base's
    order, cut as the walk cuts it (a hierarchy n deep linearised class by class cost n^2,
    issue 43). ``None`` where the base's order is not a chain (C3 or a loop decides)."""
    if base_shape == CUT_CHAIN:  # the walk from cls cuts at the same place, one earlier
        return [cls, *base_order[: _C3_DEPTH + 1]], CUT_CHAIN
    if base_shape != WHOLE_CHAIN:
        return None
    # A whole chain ends in a class with no bases: cls (whose one base starts it) is not in
    # it, or the walk from the base would have come back to the base (a loop: OTHER).
    if len(base_order) < _CHAIN_CAP:
        return [cls, *base_order], WHOLE_CHAIN
    return [cls, *base_order[: _C3_DEPTH + 1]], CUT_CHAIN


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
