"""Output formats of ``extstream-lint``: text, full, json, sarif, github, ``--statistics``.

Every formatter takes the same sorted list of :class:`Located` findings and returns the
whole document as one string, so formatting is pure and testable without running a lint.
Columns are 1-based everywhere a person or a CI system reads them (``Finding.col`` is
flake8's 0-based offset).

JSON schema (``"schema_version": 1``; keys are only ever added, never renamed)::

    {
      "schema_version": 1,
      "tool": {"name": "extstream-lint", "version": "0.1.0"},
      "findings": [
        {"filename": "pkg/mod.py", "line": 2, "column": 1, "code": "XST101",
         "message": "XST101 synchronize() on ...",
         "rule": {"category": "SYNC", "title": "synchronize() on an external stream"}}
      ],
      "statistics": {"XST101": 1}
    }
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import quote

from .. import __version__
from ..contract import RULES, Rule
from ..findings import Finding
from .docs import RULES_PAGE, anchor, render_rule
from .fixes import Fix

__all__ = [
    "FORMATTERS",
    "JSON_SCHEMA_VERSION",
    "SARIF_SCHEMA",
    "Located",
    "format_full",
    "format_github",
    "format_json",
    "format_sarif",
    "format_statistics",
    "format_text",
    "help_uri",
    "repository_root",
    "repository_url",
]

JSON_SCHEMA_VERSION = 1
#: The published OASIS schema (2.1.0 with errata 01), the one the tests validate against.
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

TOOL_NAME = "extstream-lint"


@dataclass(frozen=True, order=True)
class Located:
    """A finding with the path it was found in; sorts by path, then line and column."""

    path: str
    finding: Finding
    #: The finding's automatic fix, if it has one (:mod:`.fixes`); not part of the order.
    fix: Fix | None = field(default=None, compare=False)

    @property
    def column(self) -> int:
        """1-based column."""
        return self.finding.col + 1


def _rule(code: str) -> Rule | None:
    return RULES.get(code)


def format_text(results: Sequence[Located], *, root: str | None = None) -> str:
    """flake8's default: ``path:line:col: CODE message`` (the message starts with its code),
    the path as given (relative to the working directory); ``root`` is not used."""
    return "".join(f"{r.path}:{r.finding.line}:{r.column}: {r.finding.message}\n" for r in results)


def format_full(
    results: Sequence[Located],
    *,
    root: str | None = None,
    sources: Mapping[str, str] | None = None,
) -> str:
    """ruff's ``full``: each finding's text line, then its source line with a caret under
    the column, and the fix when it has one. ``sources`` are the texts as linted (by shown
    path; stdin's is only there); a file not in it is read, and a line that cannot be shown
    is left out rather than guessed."""
    texts: dict[str, list[str]] = {}
    blocks = []
    for r in results:
        if r.path not in texts:
            texts[r.path] = _lines(r.path, sources)
        lines = texts[r.path]
        block = f"{r.path}:{r.finding.line}:{r.column}: {r.finding.message}\n"
        if 0 < r.finding.line <= len(lines):
            number = str(r.finding.line)
            pad = " " * len(number)
            source = lines[r.finding.line - 1]
            under = "".join(c if c == "\t" else " " for c in source[: r.finding.col])
            block += f"{pad} |\n{number} | {source}\n{pad} | {under}^ {r.finding.code}\n{pad} |\n"
            if r.fix is not None:
                kind = "" if r.fix.safe else " (unsafe: --unsafe-fixes)"
                block += f"{pad} = help: {r.fix.description}{kind}\n"
        blocks.append(block)
    return "\n".join(blocks)


def _lines(path: str, sources: Mapping[str, str] | None) -> list[str]:
    text = (sources or {}).get(path)
    if text is None:
        try:
            with open(path, "rb") as handle:
                from ..project.sources import decode_python

                text = decode_python(handle.read())
        except OSError:
            return []
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def format_json(results: Sequence[Located], *, root: str | None = None) -> str:
    """The documented JSON schema (see the module docstring and the README); paths as given,
    like flake8's; ``root`` is not used."""
    findings = []
    for r in results:
        rule = _rule(r.finding.code)
        findings.append(
            {
                "filename": r.path,
                "line": r.finding.line,
                "column": r.column,
                "code": r.finding.code,
                "message": r.finding.message,
                "rule": {
                    "category": rule.category if rule else None,
                    "title": rule.title if rule else None,
                },
            }
        )
    document = {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": __version__},
        "findings": findings,
        "statistics": dict(sorted(Counter(r.finding.code for r in results).items())),
    }
    return json.dumps(document, indent=2) + "\n"


def _sarif_name(rule: Rule) -> str:
    """SARIF wants an identifier-like name: ``NULL_PTR`` becomes ``NullPtr``."""
    return "".join(part.capitalize() for part in rule.category.split("_"))


def repository_url() -> str | None:
    """The ``Repository`` URL the installed distribution declares, if any.

    SARIF's ``helpUri`` and ``informationUri`` must be absolute URIs, and extstream has no
    public address yet: rather than invent one, the SARIF output carries them only when the
    package metadata names a repository (``[project.urls] Repository`` in ``pyproject.toml``).
    Reads metadata only: no import, no network.
    """
    from importlib import metadata

    try:
        urls = metadata.metadata("extstream").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:  # running from a checkout that is not installed
        return None
    for entry in urls:
        label, _, url = entry.partition(",")
        if label.strip().lower() == "repository" and url.strip():
            return url.strip().rstrip("/")
    return None


def help_uri(code: str, repository: str) -> str:
    """The rule's page at the release tag of the running version: what produced the result.

    ``<repository>/blob/v<version>/docs/rules.md#xst101`` (GitHub's and GitLab's layout); the
    anchor is the bare code, which no change of a rule's title can break.
    """
    return f"{repository}/blob/v{__version__}/{RULES_PAGE}#{anchor(code)}"


def _sarif_rule(rule: Rule, repository: str | None) -> dict[str, object]:
    fixes = " ".join(f"{n}) {fix}" for n, fix in enumerate(rule.fixes, start=1))
    described: dict[str, object] = {
        "id": rule.code,
        "name": _sarif_name(rule),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": f"{rule.what} {rule.why}"},
        "help": {
            "text": f"{rule.why} Fix with one of: {fixes}",
            "markdown": render_rule(rule),
        },
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["torch_npu", "external-stream", rule.category.lower()]},
    }
    if repository is not None:
        described["helpUri"] = help_uri(rule.code, repository)
    return described


#: The base of relative artifact URIs: the repository root (code scanning maps it to the
#: checkout root), defined in the run's ``originalUriBaseIds``.
SRCROOT = "%SRCROOT%"


def repository_root(start: str | None = None) -> str:
    """The directory SARIF and GitHub paths are relative to: the nearest one at or above
    ``start`` (default: the working directory) holding ``.git`` (a directory, or the file of
    a worktree or submodule), else the project root (``pyproject.toml`` or ``setup.cfg``),
    else ``start`` itself. Code scanning resolves paths from the checkout's root, whatever
    directory the linter ran in."""
    start = os.path.abspath(start or os.getcwd())
    if os.path.isfile(start):
        start = os.path.dirname(start)
    from ..project.diskio import project_root
    from ..project.gitignore import repository_root as git_root

    found = git_root(start)
    if found is not None:
        return found
    return project_root(start) or start


def _under(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with forward slashes, or None when it is outside."""
    relative = os.path.relpath(os.path.abspath(path), root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


def _artifact_location(path: str, root: str) -> dict[str, str]:
    """A relative, forward-slash URI with ``uriBaseId`` for paths under ``root``; else absolute.

    SARIF 2.1.0 section 3.4.4: ``uriBaseId`` goes only with a relative ``uri``, so a file
    outside the root gets a ``file:`` URI and no base. Both are percent-encoded (a space is
    not allowed in a URI).
    """
    relative = _under(path, root)
    if relative is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    # the file name's bytes, percent-encoded: a name that is not UTF-8 (decoded with
    # surrogate escapes) has no text to encode, and crashed the report
    return {"uri": quote(os.fsencode(relative)), "uriBaseId": SRCROOT}


def _sarif_fix(r: Located, root: str) -> dict[str, object]:
    """SARIF 2.1.0 section 3.55: the finding's fix as replacements of regions (1-based
    lines, columns in the run's ``unicodeCodePoints``, ``endColumn`` exclusive)."""
    assert r.fix is not None
    kind = "safe" if r.fix.safe else "unsafe: applied only with --unsafe-fixes"
    replacements = [
        {
            "deletedRegion": {
                "startLine": edit.start[0],
                "startColumn": edit.start[1] + 1,
                "endLine": edit.end[0],
                "endColumn": edit.end[1] + 1,
            },
            "insertedContent": {"text": edit.text},
        }
        for edit in r.fix.edits
    ]
    return {
        "description": {"text": f"{r.fix.description} ({kind})"},
        "artifactChanges": [
            {"artifactLocation": _artifact_location(r.path, root), "replacements": replacements}
        ],
    }


def format_sarif(
    results: Sequence[Located], *, repository: str | None = None, root: str | None = None
) -> str:
    """SARIF 2.1.0 with one ``rule`` per contract entry, for GitHub code scanning.

    ``repository`` (default: :func:`repository_url`) gives the tool's ``informationUri``
    and each rule's ``helpUri``; without one they are left out rather than made up.
    ``root`` (default: :func:`repository_root` of the working directory) is ``%SRCROOT%``.
    """
    if repository is None:
        repository = repository_url()
    root = repository_root(root)
    index = {code: i for i, code in enumerate(RULES)}
    sarif_results = []
    for r in results:
        result: dict[str, object] = {
            "ruleId": r.finding.code,
            "level": "error",
            "message": {"text": r.finding.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": _artifact_location(r.path, root),
                        "region": {"startLine": r.finding.line, "startColumn": r.column},
                    }
                }
            ],
        }
        if r.finding.code in index:
            result["ruleIndex"] = index[r.finding.code]
        if r.fix is not None:
            result["fixes"] = [_sarif_fix(r, root)]
        sarif_results.append(result)
    driver: dict[str, object] = {
        "name": TOOL_NAME,
        "version": __version__,
        "semanticVersion": __version__,
    }
    if repository is not None:
        driver["informationUri"] = repository
    driver["rules"] = [_sarif_rule(rule, repository) for rule in RULES.values()]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {SRCROOT: {"uri": Path(root).as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(results: Sequence[Located], *, root: str | None = None) -> str:
    """GitHub Actions workflow commands: one ``::error`` annotation per finding, its path
    relative to the repository root (``root``, default :func:`repository_root`), which is
    where GitHub looks for it, whatever directory the linter ran in."""
    root = repository_root(root)
    lines = []
    for r in results:
        path = _escape_property(_under(r.path, root) or os.path.abspath(r.path))
        code, message = _escape_property(r.finding.code), _escape_data(r.finding.message)
        lines.append(
            f"::error file={path},line={r.finding.line},col={r.column},title={code}::{message}\n"
        )
    return "".join(lines)


def format_statistics(results: Sequence[Located]) -> str:
    """``--statistics``: one line per code, ``count code title``, in code order."""
    counts = Counter(r.finding.code for r in results)
    lines = []
    for code, count in sorted(counts.items()):
        rule = _rule(code)
        lines.append(f"{count:<5} {code} {rule.title if rule else ''}".rstrip())
    return "".join(line + "\n" for line in lines)


class Formatter(Protocol):
    """A format: the whole document of the sorted findings; ``root`` is the repository root
    of the run (for formats whose paths are relative to it)."""

    def __call__(self, results: Sequence[Located], *, root: str | None = None) -> str: ...


FORMATTERS: Mapping[str, Formatter] = {
    "text": format_text,
    "full": format_full,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}
