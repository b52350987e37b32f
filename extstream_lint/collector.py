"""Fewer garbage collections while extstream runs: about 40% of a cold project run.

A project run keeps millions of objects alive (every module's libcst tree, the summaries
made from them) and allocates millions more, so CPython's cyclic collector, with its
default thresholds, starts a full collection every few hundred thousand allocations and
walks everything each time. Those objects hold almost no reference cycles to reclaim.
mypy raises the thresholds the same way for the same reason; here only for the length of
an analysis, and restored after it: inside flake8 the process is not ours.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["THRESHOLDS", "fewer_collections"]

#: The collector's thresholds while analysing (mypy's): a young collection every 200,000
#: allocations, an older one every 30 of those.
THRESHOLDS = (200_000, 30, 30)

_depth = 0


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Raise the collector's thresholds until the outermost such block ends (blocks nest:
    the CLI's run holds each file's analysis)."""
    global _depth
    saved = gc.get_threshold()
    if _depth == 0:
        gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(THRESHOLDS, saved)))
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            gc.set_threshold(*saved)
