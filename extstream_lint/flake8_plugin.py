"""The flake8 adapter: turns :func:`extstream_lint.analysis.analyze_source` into flake8 results.

It uses what flake8 already has — the decoded ``lines`` (so stdin and editors work) and the
``ast`` ``tree`` (used for exact positions) — and never reopens the file. Files that cannot
contain an external stream are skipped by a regex before libcst is even imported, which
keeps the plugin's cost on ordinary code close to zero.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from . import __version__
from .bugreport import HOW_TO_REPORT
from .findings import cannot_analyse
from .prefilter import might_use_external_streams


class ExtStreamChecker:
    """flake8 AST plugin. Field names are flake8's parameter names, so tests can build it."""

    name = "extstream"
    version = __version__

    def __init__(self, tree: ast.AST, lines: list[str], filename: str = "<unknown>") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        if not might_use_external_streams(source):
            return
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        try:
            from .analysis import analyze_source  # libcst only when a file needs it

            findings = analyze_source(source, self.filename, tree=tree)
        except Exception as error:  # a broken install must not abort the user's flake8 run
            reason = f"the analysis could not run, {type(error).__name__}: {error}; {HOW_TO_REPORT}"
            findings = [cannot_analyse(reason)]
        for finding in findings:
            yield finding.line, finding.col, finding.message, type(self)
