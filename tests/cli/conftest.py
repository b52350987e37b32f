"""Shared fixtures of the CLI tests.

Until the real analysis lands (and to test formatting, noqa and exit codes independently
of it), ``fake_analysis`` replaces ``extstream_lint.analysis.analyze_source`` with a tiny
stand-in that reports ``CODE`` wherever a line says ``BAD_CODE(`` (for example
``x = BAD_XST101()``), at the column of ``BAD_``. Both the CLI and the flake8 plugin
import the analysis at call time, so the patch reaches both; ``fork_workers`` (which it
uses) makes the CLI fork its worker processes, so the patch reaches them too.
"""

from __future__ import annotations

import multiprocessing
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from extstream_lint import analysis
from extstream_lint.findings import Finding
from extstream_lint.frontends import cli

_MARK = re.compile(r"BAD_(XST\d{3})\(")


class FakeAnalysis:
    """Records every call, so tests can check what was (not) analysed."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def __call__(
        self,
        source: str | bytes,
        filename: str = "<unknown>",
        tree: object = None,
        project: object = None,
        kept: bool = True,
    ) -> list[Finding]:
        text = source.decode() if isinstance(source, bytes) else source
        self.calls.append((filename, text))
        findings = []
        # lines as Python counts them: only \n, \r\n and \r end one (not str.splitlines)
        for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
            for match in _MARK.finditer(line):
                code = match.group(1)
                findings.append(Finding(number, match.start(), code, f"{code} fake finding"))
        return findings


@pytest.fixture
def fake_analysis(monkeypatch: pytest.MonkeyPatch, fork_workers: None) -> Iterator[FakeAnalysis]:
    fake = FakeAnalysis()
    monkeypatch.setattr(analysis, "analyze_source", fake)
    yield fake


@pytest.fixture
def fork_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork the CLI's workers, so they inherit a monkeypatched analysis (POSIX only)."""
    monkeypatch.setattr(cli, "MP_CONTEXT", multiprocessing.get_context("fork"))


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty temporary directory, so no pyproject.toml of ours is picked up."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
