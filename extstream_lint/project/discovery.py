"""Which files to lint: walking directories, built-in and configured excludes, .gitignore.

Directories are searched for ``*.py`` and ``*.pyi``; version-control metadata, caches,
build output, ``__pycache__`` and virtual environments (any directory holding a
``pyvenv.cfg``, plus the usual names) are never entered, and by default neither is anything
git ignores (:mod:`.gitignore`). Configured ``exclude`` globs apply to files named on the
command line too, as in flake8, so pre-commit (which passes every file by name) honours
them; the built-in list and ``.gitignore`` apply only while walking: a file or directory
named on the command line is linted (as in ruff).

Glob rules (documented in the README): a glob without ``/`` matches a file or directory
*name* at any depth (``build``, ``*_pb2.py``); a glob with ``/`` matches the path relative
to the directory of the configuration file (``src/gen/*``, ``tests/**``). ``*`` matches
across ``/`` (``fnmatch``), so ``tests/*`` covers the whole tree under ``tests``.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence

from .gitignore import IgnoreRules, rules_above

__all__ = ["DEFAULT_EXCLUDES", "SUFFIXES", "iter_files", "matches_any"]

SUFFIXES = (".py", ".pyi")

#: Directory names never entered while walking (they may still be linted when named):
#: ruff's default ``exclude`` list, plus other tools' caches and our own.
DEFAULT_EXCLUDES: frozenset[str] = frozenset(
    {
        # version control
        ".git",
        ".git-rewrite",
        ".hg",
        ".svn",
        ".bzr",
        "CVS",
        # caches
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".pytype",
        ".hypothesis",
        ".ipynb_checkpoints",
        ".extstream_cache",
        # environments and installed code
        ".tox",
        ".nox",
        ".eggs",
        ".venv",
        "venv",
        ".direnv",
        ".pyenv",
        "__pypackages__",
        "site-packages",
        "node_modules",
        # build output and editor settings
        "build",
        "dist",
        "_build",
        "buck-out",
        ".pants.d",
        ".vscode",
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


def iter_files(
    paths: Sequence[str],
    exclude: Sequence[str],
    root: str,
    respect_gitignore: bool = True,
    unlisted: list[tuple[str, OSError]] | None = None,
) -> Iterator[str]:
    """Every file to lint under ``paths`` (which exist), each once, directories walked in
    sorted order. ``respect_gitignore``: skip what git ignores while walking. A directory
    that cannot be listed is added to ``unlisted`` with the error (a user must hear that
    part of the tree was not linted)."""
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            found: Iterator[str] = _walk(path, exclude, root, respect_gitignore, unlisted)
        elif matches_any(path, exclude, root):
            continue
        else:
            found = iter((path,))
        for file in found:
            key = os.path.normcase(os.path.abspath(file))
            if key not in seen:
                seen.add(key)
                yield file


def _walk(
    top: str,
    exclude: Sequence[str],
    root: str,
    respect_gitignore: bool,
    unlisted: list[tuple[str, OSError]] | None,
) -> Iterator[str]:
    """Top-down, depth first, in sorted order, as ``os.walk`` without following links to
    directories; but with a stack of its own: ``os.walk`` recurses (before Python 3.12),
    and a tree about 1,000 directories deep ended the run with RecursionError."""
    absolute_top = os.path.abspath(top)
    top_rules = rules_above(absolute_top) if respect_gitignore else IgnoreRules()
    pending: list[tuple[str, IgnoreRules]] = [(top, top_rules)]
    while pending:
        directory, here = pending.pop()
        absolute = os.path.abspath(directory)
        try:
            dirnames, filenames = _list(directory)
        except OSError as error:
            if unlisted is not None:
                unlisted.append((directory, error))
            continue
        if respect_gitignore:
            here = here.entering(absolute)
        kept = []
        for name in sorted(dirnames):
            path = os.path.join(directory, name)
            if (
                name in DEFAULT_EXCLUDES
                or _is_venv(path)
                or here.ignores(os.path.join(absolute, name), is_dir=True)
                or matches_any(path, exclude, root)
            ):
                continue
            kept.append((path, here))
        for name in sorted(filenames):
            if name.endswith(SUFFIXES):
                file = os.path.join(directory, name)
                if not here.ignores(os.path.join(absolute, name), is_dir=False) and not matches_any(
                    file, exclude, root
                ):
                    yield file
        pending.extend(reversed(kept))


def _list(directory: str) -> tuple[list[str], list[str]]:
    """The directories ``os.walk`` would enter (not links to one) and the other entries."""
    dirnames, filenames = [], []
    with os.scandir(directory) as entries:
        for entry in entries:
            try:
                is_dir = entry.is_dir() and not entry.is_symlink()
            except OSError:
                is_dir = False
            if is_dir:
                dirnames.append(entry.name)
            elif not _is_link_to_directory(entry):
                filenames.append(entry.name)
    return dirnames, filenames


def _is_link_to_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink() and entry.is_dir()
    except OSError:
        return False
