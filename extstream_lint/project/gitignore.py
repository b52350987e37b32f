"""What git would ignore while the CLI walks a directory (ruff's ``respect-gitignore``).

A directory walk would otherwise lint what the project itself calls generated or foreign:
an unpacked wheel in ``.cache/``, a build tree, a vendored copy. The rules read are the
``.gitignore`` of every directory from the repository's root (the nearest directory holding
``.git``) down to the walked one and below it, and the repository's ``.git/info/exclude``;
a deeper file's rule wins over a shallower one's, as in git. ``.gitignore`` files are read
inside a walked tree even where there is no ``.git`` (an unpacked source archive). Not read:
git's global ``core.excludesFile``. Matching is ``pathspec``'s ``GitIgnoreSpec``, git's own
semantics (the matcher black uses).

Files named on the command line are never checked here: naming a file lints it, as in ruff.
"""

from __future__ import annotations

import os

import pathspec

from .regular import read_regular

#: ``.git`` and ``commondir`` files hold one path: anything larger is not git's.
_SMALL = 1 << 16

__all__ = ["IgnoreRules", "repository_root", "rules_above"]

Layer = tuple[str, pathspec.PathSpec]


class IgnoreRules:
    """The ignore files in force in one directory: (directory, patterns), outermost first."""

    __slots__ = ("layers",)

    def __init__(self, layers: tuple[Layer, ...] = ()) -> None:
        self.layers = layers

    def entering(self, directory: str) -> IgnoreRules:
        """The rules inside ``directory`` (absolute): these plus its own ``.gitignore``."""
        spec = _read(os.path.join(directory, ".gitignore"))
        return self if spec is None else IgnoreRules((*self.layers, (directory, spec)))

    def ignores(self, path: str, is_dir: bool) -> bool:
        """Whether git would ignore ``path`` (absolute); the deepest file that decides wins."""
        for base, spec in reversed(self.layers):
            if path == base or not path.startswith(base.rstrip(os.sep) + os.sep):
                continue
            relative = path[len(base.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
            decision: bool | None = spec.check_file(relative + "/" if is_dir else relative).include
            if decision is not None:
                return decision
        return False


def rules_above(top: str) -> IgnoreRules:
    """The rules in force in ``top`` (absolute) before its own ``.gitignore`` is read.

    Those of the repository holding ``top``: its ``info/exclude`` and the ``.gitignore`` of
    every directory from its root down to ``top``'s parent. A directory named on the command
    line is walked even when these ignore it (naming it asks for it); then only the
    ``.gitignore`` files inside it apply.
    """
    root = repository_root(top)
    if root is None or root == top:
        return _with_exclude(IgnoreRules(), root)
    rules = _with_exclude(IgnoreRules(), root)
    directory = root
    for part in os.path.relpath(os.path.dirname(top), root).split(os.sep):
        if part != os.curdir:
            directory = os.path.join(directory, part)
        rules = rules.entering(directory)
    return IgnoreRules() if rules.ignores(top, is_dir=True) else rules


def _with_exclude(rules: IgnoreRules, root: str | None) -> IgnoreRules:
    if root is None:
        return rules
    git_dir = _git_dir(root)
    spec = None if git_dir is None else _read(os.path.join(git_dir, "info", "exclude"))
    return rules if spec is None else IgnoreRules(((root, spec),))


def repository_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` holding ``.git`` (a directory, or
    the file of a worktree or submodule); ``None`` outside any repository."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _git_dir(root: str) -> str | None:
    """``root/.git``, or for a worktree (``.git`` is a file) the common git directory."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:  # a regular file only: a FIFO named .git would block the walk (:mod:`.regular`)
        line = read_regular(dot_git, _SMALL).decode("utf-8").split("\n", 1)[0].strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir:"):
        return None
    git_dir = os.path.join(root, line[len("gitdir:") :].strip())
    try:
        common = read_regular(os.path.join(git_dir, "commondir"), _SMALL).decode("utf-8")
        return os.path.normpath(os.path.join(git_dir, common.strip()))
    except (OSError, UnicodeDecodeError):
        return git_dir


def _read(path: str) -> pathspec.PathSpec | None:
    """The patterns of one ignore file; ``None`` when it is absent or unreadable (git too
    skips an ignore file it cannot read)."""
    try:  # a regular file only: a FIFO or device is skipped like an unreadable file
        text = read_regular(path).decode("utf-8", errors="surrogateescape")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())
