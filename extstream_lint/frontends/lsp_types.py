"""The language server's documents and its answers in LSP types (lsprotocol, with pygls).

:class:`Documents` checks a document as the command would check that file (its nearest
configuration, the run's project index, the same selection, ``# noqa`` and fixes) and keeps
what it reported, so that a code action offers the fixes of exactly those findings. Positions
go through the client's position codec: a finding's column counts characters, a client may
count UTF-16 units.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from ..contract import RULES
from ..project.diskio import set_cache_dir
from ..project.limits import set_max_file_bytes
from .commands import noqa_edits
from .config import ConfigError, find_pyproject
from .docs import RULES_PATH, anchor
from .fixes import Edit
from .formats import Located, help_uri, repository_url
from .linting import lint_text, located
from .options import Options, UsageError, build_parser, make_options
from .trace import steps

__all__ = ["Documents", "code_actions", "options_for", "rule_page"]

SOURCE = "extstream"
#: What a finding's range covers from its column: the dotted name or call it starts.
_TOKEN = re.compile(r"[\w.]+")


def options_for(path: str) -> Options:
    """The settings the command would lint ``path`` with: the nearest ``pyproject.toml``
    with a ``[tool.extstream-lint]`` above the file (not above the server's directory)."""
    config = find_pyproject(os.path.dirname(path))
    chosen = ["--config", config] if config else ["--isolated"]
    return make_options(build_parser().parse_args([*chosen, "--stdin-filename", path, "-"]))


def rule_page(code: str) -> str | None:
    """The rule's page: in the declared repository at this version, else the checkout's
    ``docs/rules.md`` (an editable install); None when neither exists."""
    repository = repository_url()
    if repository is not None:
        return help_uri(code, repository)
    if os.path.isfile(RULES_PATH):
        return f"{Path(RULES_PATH).as_uri()}#{anchor(code)}"
    return None


@dataclass
class _Checked:
    """What was last reported for a document: of which text, with which settings."""

    text: str
    results: list[Located]
    roots: tuple[str, ...] = ()


class Documents:
    """The open documents and what was last reported for each."""

    def __init__(self) -> None:
        self._open: set[str] = set()
        self._checked: dict[str, _Checked] = {}

    def open(self, uri: str) -> None:
        self._open.add(uri)

    def close(self, uri: str) -> None:
        self._open.discard(uri)
        self._checked.pop(uri, None)

    def opened(self) -> list[str]:
        return sorted(self._open)

    def results(self, uri: str, text: str) -> list[Located]:
        """The findings of ``text``, checked again if it is not what was last checked."""
        checked = self._checked.get(uri)
        if checked is None or checked.text != text:
            self._run(uri, text)
        return self._checked[uri].results

    def _run(self, uri: str, text: str) -> list[types.Diagnostic]:
        path = to_fs_path(uri) or uri
        try:
            options = options_for(path)
        except (ConfigError, UsageError) as exc:
            self._checked[uri] = _Checked(text, [])
            return [_problem(f"extstream configuration: {exc}")]
        set_max_file_bytes(options.max_file_size)
        set_cache_dir(options.cache_dir)
        findings = lint_text(text, path, options.src, options.cache)
        results = located(options, path, text, findings, fixing=True)
        self._checked[uri] = _Checked(text, results, options.src)
        return []

    def check(self, uri: str, text: str, codec: Any) -> list[types.Diagnostic]:
        """The diagnostics of the document's current text."""
        problems = self._run(uri, text)
        if problems:
            return problems
        lines = text.splitlines() or [""]
        checked = self._checked[uri]
        path = to_fs_path(uri) or uri
        return [_diagnostic(r, lines, codec, path, checked.roots) for r in checked.results]


def _problem(message: str) -> types.Diagnostic:
    start = types.Position(line=0, character=0)
    return types.Diagnostic(
        range=types.Range(start=start, end=start),
        message=message,
        severity=types.DiagnosticSeverity.Error,
        source=SOURCE,
    )


def _position(lines: list[str], codec: Any, line: int, column: int) -> types.Position:
    """A 1-based line and a character column, in the client's units."""
    return codec.position_to_client_units(lines, types.Position(line=line - 1, character=column))


def _key(r: Located) -> str:
    return f"{r.finding.line}:{r.finding.col}:{r.finding.code}"


def _diagnostic(
    r: Located, lines: list[str], codec: Any, path: str, roots: tuple[str, ...]
) -> types.Diagnostic:
    finding = r.finding
    text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    token = _TOKEN.match(text, finding.col)
    end = token.end() if token else min(finding.col + 1, len(text))
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=Path(step.path).as_uri(),
                range=types.Range(
                    start=types.Position(line=(step.line or 1) - 1, character=0),
                    end=types.Position(line=step.line or 1, character=0),
                ),
            ),
            message=step.what,
        )
        for step in steps(finding, path, roots)
    ]
    page = rule_page(finding.code)
    rule = RULES.get(finding.code)
    return types.Diagnostic(
        range=types.Range(
            start=_position(lines, codec, finding.line, finding.col),
            end=_position(lines, codec, finding.line, max(end, finding.col)),
        ),
        message=finding.message,
        severity=types.DiagnosticSeverity.Warning
        if rule is not None and rule.opt_in
        else types.DiagnosticSeverity.Error,
        code=finding.code,
        code_description=types.CodeDescription(href=page) if page else None,
        source=SOURCE,
        related_information=related or None,
        data={"key": _key(r)},
    )


def _text_edits(edits: tuple[Edit, ...] | list[Edit], lines: list[str], codec: Any) -> list[Any]:
    return [
        types.TextEdit(
            range=types.Range(
                start=_position(lines, codec, *edit.start), end=_position(lines, codec, *edit.end)
            ),
            new_text=edit.text,
        )
        for edit in edits
    ]


def _matching(results: list[Located], diagnostic: types.Diagnostic) -> Located | None:
    key = diagnostic.data.get("key") if isinstance(diagnostic.data, dict) else None
    for r in results:
        if key == _key(r) or (
            key is None
            and r.finding.code == diagnostic.code
            and r.finding.line - 1 == diagnostic.range.start.line
        ):
            return r
    return None


def code_actions(
    documents: Documents, uri: str, text: str, params: types.CodeActionParams, codec: Any
) -> list[types.CodeAction]:
    """For each of our diagnostics in the request: its fix (safe ones preferred; unsafe ones
    say so in the title), then ``# noqa: CODE`` on its line."""
    results = documents.results(uri, text)
    lines = text.splitlines() or [""]
    actions = []
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != SOURCE:
            continue
        r = _matching(results, diagnostic)
        if r is None:
            continue
        if r.fix is not None:
            title = r.fix.description + ("" if r.fix.safe else " (unsafe fix)")
            actions.append(
                types.CodeAction(
                    title=f"{r.finding.code}: {title}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=r.fix.safe,
                    edit=types.WorkspaceEdit(changes={uri: _text_edits(r.fix.edits, lines, codec)}),
                )
            )
        edits = noqa_edits(text, {r.finding.line: [r.finding.code]})
        if edits:
            actions.append(
                types.CodeAction(
                    title=f"{r.finding.code}: add `# noqa: {r.finding.code}` to this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=types.WorkspaceEdit(changes={uri: _text_edits(edits, lines, codec)}),
                )
            )
    return actions
