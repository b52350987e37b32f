"""Fewer garbage collections while extstream runs: about 40% of a cold project run.

A project run keeps millions of objects alive (every module's libcst tree, the summaries
made from them) and allocates millions more, so CPython's cyclic collector, with its
default thresholds, starts a full collection every few hundred thousand allocations and
walks everything each time. Those objects hold almost no reference cycles to reclaim.
mypy raises the thresholds the same way for the same reason. The CLI raises them for its
run. flake8 has no end-of-run hook, so from the first file that needs an analysis on they
stay raised (:func:`raise_for_the_process`): the trees a run keeps live between files,
and flake8's own checks of the next file would otherwise walk them all (a quarter of
flake8's time on the standard library). This changes how often cycles are looked for,
never what is freed.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["THRESHOLDS", "fewer_collections", "raise_for_the_process"]

#: The collector's thresholds while analysing (mypy's): a young collection every 200,000
#: allocations, an older one every 30 of those.
THRESHOLDS = (200_000, 30, 30)

_depth = 0
#: The thresholds to restore when the outermost block ends.
_saved: tuple[int, ...] = ()


def _raised(current: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(max(mine, theirs) for mine, theirs in zip(THRESHOLDS, current))


def raise_for_the_process() -> None:
    """Raise the collector's thresholds until the process ends (an adapter in a process
    that is not ours and gives no end-of-run hook: flake8)."""
    global _saved
    gc.set_threshold(*_raised(gc.get_threshold()))
    _saved = _raised(_saved) if _saved else _saved


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds until the outermost such block ends (blocks nest:
    the CLI's run holds each file's analysis)."""
    global _depth, _saved
    if _depth == 0:
        _saved = gc.get_threshold()
        gc.set_threshold(*_raised(_saved))
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.set_threshold(*_saved)
            _saved = ()
