"""XST112 and XST201 on a small realistic project (issue 28, parts 2 and 3).

``fixtures/pipeline`` is an offload engine and a multi-device pipeline: pinned buffers made
by ``functools.partial`` factories and helpers in one module and copied in another,
``non_blocking`` passed in a ``**`` dict kept in a module, a helper that copies what it is
given, per-device external streams (``ExternalStream(handle, device=...)`` with literal and
symbolic devices), and the ``cuda`` spellings after ``transfer_to_npu``. Each expected
finding is a trailing ``# XST...`` comment; every other line is a trap that must stay
silent. Recall and precision of the two rules must be 1.0 file by file (as editors and
flake8 see the project), through flake8 on the directory and through the CLI.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from tests.project.test_project import _expected, _parse, _run

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "pipeline"
RULES = ("XST112", "XST201")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    target = tmp_path / "pipeline"
    shutil.copytree(FIXTURE, target)
    return target


def _scores(
    actual: set[tuple[str, int, str]], expected: set[tuple[str, int, str]]
) -> tuple[float, float]:
    """(recall, precision) of the two rules."""
    want = {item for item in expected if item[2] in RULES}
    got = {item for item in actual if item[2] in RULES}
    hits = len(want & got)
    return hits / len(want), (hits / len(got) if got else 1.0)


def test_fixture_covers_both_rules_in_several_modules() -> None:
    expected = _expected(FIXTURE)
    assert {code for _, _, code in expected} == set(RULES)
    assert sum(code == "XST112" for _, _, code in expected) >= 3
    assert sum(code == "XST201" for _, _, code in expected) >= 6
    assert {path for path, _, _ in expected} == {"pipe/offload.py", "pipe/stages.py", "run.py"}


def test_file_by_file_recall_and_precision_are_one(project: Path) -> None:
    index = ProjectIndex()
    actual = set()
    for path in sorted(project.rglob("*.py")):
        relative = path.relative_to(project).as_posix()
        for finding in analyze_source(path.read_text(encoding="utf-8"), str(path), project=index):
            actual.add((relative, finding.line, finding.code))
    expected = _expected(project)
    assert _scores(actual, expected) == (1.0, 1.0)
    assert actual == expected


def test_flake8_and_the_cli_agree(project: Path) -> None:
    expected = _expected(project)
    flake8 = _parse(_run(["flake8", "--isolated", "--select=XST", "."], project))
    cli = _parse(_run(["extstream_lint", "--isolated", "--select=XST", "-j", "2", "."], project))
    assert _scores(flake8, expected) == (1.0, 1.0)
    assert flake8 == expected
    assert cli == expected
