"""Which files to lint: walking directories, built-in and configured excludes.

Directories are searched for ``*.py`` and ``*.pyi``; version-control metadata, caches,
``__pycache__`` and virtual environments (any directory holding a ``pyvenv.cfg``, plus the
usual names) are never entered. Configured ``exclude`` globs apply to files named on the
command line too, as in flake8, so pre-commit (which passes every file by name) honours
them.

Glob rules (documented in the README): a glob without ``/`` matches a file or directory
*name* at any depth (``build``, ``*_pb2.py``); a glob with ``/`` matches the path relative
to the directory of the configuration file (``src/gen/*``, ``tests/**``). ``*`` matches
across ``/`` (``fnmatch``), so ``tests/*`` covers the whole tree under ``tests``.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence

__all__ = ["DEFAULT_EXCLUDES", "SUFFIXES", "iter_files", "matches_any"]

SUFFIXES = (".py", ".pyi")

#: Directory names never entered while walking (they may still be linted when named).
DEFAULT_EXCLUDES: frozenset[str] = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".bzr",
        "CVS",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        ".eggs",
        ".venv",
        "venv",
        ".direnv",
        "__pypackages__",
        "node_modules",
    }
)


def matches_any(path: str, globs: Sequence[str], root: str) -> bool:
    """Whether ``path`` (or one of its directories, for name globs) matches a glob."""
    if not globs:
        return False
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root).replace(os.sep, "/")
    parts = relative.split("/")
    for glob in globs:
        pattern = glob.replace(os.sep, "/").rstrip("/")
        if pattern.startswith("./"):
            pattern = pattern[2:]
        if "/" in pattern:
            if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(
                absolute.replace(os.sep, "/"), pattern
            ):
                return True
            # "src/gen" excludes everything under it.
            if any(fnmatch.fnmatchcase("/".join(parts[:i]), pattern) for i in range(1, len(parts))):
                return True
        elif any(fnmatch.fnmatchcase(part, pattern) for part in parts):
            return True
    return False


def _is_venv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def iter_files(paths: Sequence[str], exclude: Sequence[str], root: str) -> Iterator[str]:
    """Every file to lint under ``paths``, each once, directories walked in sorted order.

    A path that does not exist is yielded as is: reading it fails and that is reported as
    a finding for that path, so a typo is never silently a clean run.
    """
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            found: Iterator[str] = _walk(path, exclude, root)
        elif matches_any(path, exclude, root):
            continue
        else:
            found = iter((path,))
        for file in found:
            key = os.path.normcase(os.path.abspath(file))
            if key not in seen:
                seen.add(key)
                yield file


def _walk(top: str, exclude: Sequence[str], root: str) -> Iterator[str]:
    for directory, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(
            name
            for name in dirnames
            if name not in DEFAULT_EXCLUDES
            and not _is_venv(os.path.join(directory, name))
            and not matches_any(os.path.join(directory, name), exclude, root)
        )
        for name in sorted(filenames):
            if name.endswith(SUFFIXES):
                file = os.path.join(directory, name)
                if not matches_any(file, exclude, root):
                    yield file
