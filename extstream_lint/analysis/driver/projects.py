"""Which project index a file is analysed with, and the findings kept for it.

Plain Python, no libcst: an unchanged file in an unchanged project gets its kept findings
(:meth:`.index.ProjectIndex.known_findings`) from here without libcst being imported,
which is most of what an editor's flake8 run on save would otherwise cost. Only a file
that must be analysed goes on to :mod:`.engine`.
"""

from __future__ import annotations

import atexit
import os

from ...findings import Finding
from ...project.limits import over_limit
from ...project.modules import one_run
from .index import ProjectIndex

__all__ = [
    "decode",
    "default_index",
    "index_for",
    "kept_findings",
    "placed",
    "release_at_exit",
    "serve_later_runs",
]

_INDEXES: dict[tuple[tuple[str, ...], bool], ProjectIndex] = {}
_RELEASE = []  # the callbacks registered with atexit (once each)
#: Whether this process runs the analysis again and again (the language server): its
#: indexes then keep, in memory, what a later run replays (:attr:`.index.ProjectIndex.keeps_runs`).
_LASTING = [False]


def serve_later_runs() -> None:
    """Say that this process analyses again after edits (a server, not a one-shot command):
    the indexes made from now on keep in memory what a later run may replay."""
    _LASTING[0] = True


def release_at_exit(*also: object) -> None:
    """Let go of the process-wide indexes (every summary kept) when the process exits,
    before the interpreter's own teardown (``also``: callables that let go of what an
    adapter holds, such as flake8's run and its parsed trees).

    At exit CPython runs full garbage collections over whatever is still alive: with a
    project's trees and summaries alive, a third of a one-file flake8 run on the standard
    library went to them. Dropped first, they are freed by reference counting, cheaply.
    """
    for callback in (_INDEXES.clear, *also):
        if callback not in _RELEASE:
            _RELEASE.append(callback)
            atexit.register(callback)  # type: ignore[arg-type]


def index_for(src: tuple[str, ...] = (), cache: bool = False) -> ProjectIndex:
    """The process-wide project index for these settings (configured roots, disk cache)."""
    key = (src, cache)
    index = _INDEXES.get(key)
    if index is None:
        from .cache import DiskCache

        index = _INDEXES[key] = ProjectIndex(src, DiskCache() if cache else None, _LASTING[0])
    return index


def default_index() -> ProjectIndex:
    """The index used when the caller gives none: in memory only, no configured roots."""
    return index_for()


def placed(filename: str, project: ProjectIndex | None) -> tuple[ProjectIndex | None, str | None]:
    """The index and absolute path of a file with a real path; (None, None) for a buffer
    without one (``<stdin>``), which is analysed alone."""
    if not filename or filename.startswith("<") or filename in ("-", "stdin"):
        return None, None
    index = project if project is not None else default_index()
    return index, os.path.abspath(filename)


def decode(source: str | bytes) -> str:
    """Decode a file's bytes as both front ends do (:func:`.sources.decode_python`)."""
    if isinstance(source, bytes):
        from ...project.sources import decode_python

        return decode_python(source)
    return source[1:] if source.startswith("\ufeff") else source


def kept_findings(
    source: str | bytes, filename: str, project: ProjectIndex | None = None
) -> list[Finding] | None:
    """The findings kept for this very text of ``filename`` if nothing they rest on has
    changed (only with a disk cache); ``None`` when it must be analysed. Never raises."""
    try:
        text = decode(source)
        if over_limit(text) is not None:  # the analysis says why (the limit may have changed)
            return None
        index, path = placed(filename, project)
        if index is None or path is None or index.cache is None:
            return None
        with one_run():
            return index.known_findings(path, text)
    except Exception:  # whatever went wrong, the analysis proper decides
        return None
