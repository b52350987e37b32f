"""The on-disk project index: module summaries kept between runs, as ruff and mypy do.

``.extstream_cache/`` sits at the project root (the nearest directory above the file with
a ``pyproject.toml``, ``setup.cfg`` or ``.git``), holds its own ``.gitignore`` and one
file per module under a directory named after the tool version. An entry records the
module's size and mtime and those of every module its summary used; the index checks
them on load (:meth:`.index.ProjectIndex._fresh`), so a stale entry is never used.

The cache is an optimisation, never needed for correctness: a missing, corrupt, foreign
or unwritable cache is ignored (rebuilt or bypassed) without a word. Writes go to a
temporary file renamed over the entry, so concurrent ``flake8 -j``, editors and
pre-commit runs only ever see whole entries.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from functools import lru_cache

from .. import __version__

CACHE_DIR = ".extstream_cache"
_MARKERS = ("pyproject.toml", "setup.cfg", ".git")
#: Bumped when the pickled layout changes without a version change (development).
_FORMAT = 2


@lru_cache(maxsize=1024)
def project_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` that looks like a project root;
    ``None`` outside any project (installed packages): nothing is cached there."""
    current = os.path.abspath(directory)
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in _MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


class DiskCache:
    """Entries of :class:`.index.ProjectIndex`, one file per module path."""

    def __init__(self) -> None:
        self.hits = 0
        self.writes = 0

    def _location(self, path: str) -> str:
        root = project_root(os.path.dirname(path))
        if root is None:
            raise OSError("no project root")
        digest = hashlib.sha1(os.path.abspath(path).encode("utf-8", "surrogatepass")).hexdigest()
        return os.path.join(root, CACHE_DIR, f"{__version__}-{_FORMAT}", digest + ".pickle")

    def load(self, path: str) -> object | None:
        try:
            with open(self._location(path), "rb") as handle:
                entry = pickle.load(handle)
        except Exception:  # missing, truncated, corrupt, from another layout: rebuild
            return None
        from .index import Entry

        if not isinstance(entry, Entry):
            return None
        self.hits += 1
        return entry

    def store(self, path: str, entry: object) -> None:
        try:
            location = self._location(path)
            directory = os.path.dirname(location)
            _prepare(os.path.dirname(directory), directory)
            fd, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pickle")
            try:
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump(entry, handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(temporary, location)
            except BaseException:
                _remove(temporary)
                raise
            self.writes += 1
        except Exception:  # read-only tree, full disk, unpicklable value: just no cache
            return


def _prepare(cache_dir: str, directory: str) -> None:
    """Create the cache directory with a ``.gitignore`` that ignores all of it."""
    os.makedirs(directory, exist_ok=True)
    ignore = os.path.join(cache_dir, ".gitignore")
    if not os.path.exists(ignore):
        fd, temporary = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("# Automatically created by extstream-lint.\n*\n")
        os.replace(temporary, ignore)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
