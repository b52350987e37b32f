"""The adapters' pre-filter: which files need the analysis at all.

A file needs it when its text may make or annotate an external stream
(:func:`.markers.might_use_external_streams`), or when it imports a project module that may
hand it one (:mod:`.graph`, a question on the run's import components). Everything else is
never parsed.
"""

from __future__ import annotations

import os

from .markers import might_use_external_streams

__all__ = ["might_use_external_streams", "should_analyse"]


def should_analyse(
    text: str, filename: str, src: tuple[str, ...] = (), cache: bool = False
) -> bool:
    """The adapters' test: the markers, or an import of a project module that may hand
    this file an external stream (an adapter module, a holder class, a registry). ``src``
    and ``cache`` are the analysis's: both ask one import graph, which reads each file's
    imports once."""
    if might_use_external_streams(text):
        return True
    if "import" not in text or not filename or os.path.splitext(filename)[1] != ".py":
        return False
    from .graph import imports_external  # plain Python, no libcst

    return imports_external(text, filename, src, cache)
