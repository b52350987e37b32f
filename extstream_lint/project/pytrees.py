"""CPython's trees of project files: parsed quietly, and at most once per run per text.

The import graph asks CPython's tree of a module for its top-level statements
(:mod:`.names`), and the analysis asks it again before every libcst parse (its guard and
the positions of findings, :mod:`.analysis.source.parsing`): both get the one tree kept here for
the length of a run. No libcst here.
"""

from __future__ import annotations

import ast
import warnings

from .modules import run_memo

__all__ = ["known_tree", "python_parse", "tree_of"]


def python_parse(text: str) -> ast.Module:
    """``ast.parse`` without showing warnings about the user's code.

    CPython warns while parsing (``DeprecationWarning``/``SyntaxWarning`` for an invalid
    escape sequence such as ``"\\d"``); those are the compiler's and flake8's to report, and
    showing them from a linter's internals would repeat them once per tool.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(text)


def tree_of(path: str, text: str) -> ast.Module | None:
    """CPython's tree of the project file ``path`` read as ``text``; ``None`` when CPython
    rejects it (a syntax error, or nesting beyond its limits). Kept for the run."""
    trees = run_memo("python-trees", dict)
    if trees is not None:
        known = trees.get(path)
        if known is not None and known[0] == text:
            return known[1]
    try:
        tree: ast.Module | None = python_parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if trees is not None:
        trees[path] = (text, tree)
    return tree


def known_tree(path: str, text: str) -> ast.Module | None:
    """The tree :func:`tree_of` kept in this run for ``path`` read as ``text``, if any."""
    trees = run_memo("python-trees", dict)
    known = trees.get(path) if trees is not None else None
    return known[1] if known is not None and known[0] == text else None
