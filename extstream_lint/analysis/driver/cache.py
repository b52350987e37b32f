"""The on-disk project index: module summaries kept between runs, as ruff and mypy do.

``.extstream_cache/`` sits at the project root (the nearest directory above the file with
a ``pyproject.toml``, ``setup.cfg`` or ``.git``), holds its own ``.gitignore`` and one
file per module under a directory named after the tool version. An entry records the
module's stamp (:data:`..project.modules.Stamp`) and what every module its summary used
said; the index checks them on load (:meth:`.reuse.Reuse._reusable`), so a stale entry
is never used, and :mod:`..project.diskio` reads only entries this user sealed.

The cache is an optimisation, never needed for correctness: a missing, corrupt, foreign
or unwritable cache is ignored (rebuilt or bypassed) without a word. Writes go to a
temporary file renamed over the entry, so concurrent ``flake8 -j``, editors and
pre-commit runs only ever see whole entries.
"""

from __future__ import annotations

import hashlib
import os

from ...project.diskio import CACHE_DIR, entry_directory, load, project_root, store
from .entries import Entry, FindingsEntry, FixesEntry, StoredEntry

__all__ = ["CACHE_DIR", "DiskCache", "project_root"]


class DiskCache:
    """Entries of :class:`.index.ProjectIndex` (:class:`.entries.Entry`), one file per module."""

    def __init__(self) -> None:
        self.hits = 0
        self.writes = 0

    def _location(self, path: str, kind: str = "") -> str:
        root = project_root(os.path.dirname(path))
        if root is None:
            raise OSError("no project root")
        key = kind + os.path.abspath(path)
        digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(entry_directory(root), digest + ".pickle")

    def load(self, path: str, kind: str = "") -> object | None:
        """The entry of ``kind`` ("": a module's summary, "findings:": a linted file's
        findings, "runs:": the summaries of its last computation, "fixes:": the fixes of its
        findings) for the file ``path``, or ``None``."""
        try:
            entry = load(self._location(path, kind))
        except Exception:  # missing, truncated, corrupt, from another layout: rebuild
            return None
        if isinstance(entry, list):  # the summaries of a cycle member's last computation
            if not all(isinstance(run, StoredEntry) for run in entry):
                return None
        elif not isinstance(entry, (Entry, StoredEntry, FindingsEntry, FixesEntry)):
            return None
        self.hits += 1
        return entry

    def store(self, path: str, entry: object, kind: str = "") -> None:
        try:
            store(self._location(path, kind), entry)
            self.writes += 1
        except Exception:  # read-only tree, full disk, unpicklable value: just no cache
            return
