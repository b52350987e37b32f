"""Golden cases: every file under tests/lint_cases states its expected findings inline.

A trailing comment ``# XST101`` on a line of code means "XST101 is reported on this
line"; ``# XST101(may)`` means it is reported with "may be" wording, and ``# XST101: 5``
(as in bugbear's tests) that it is reported at column 5, 1-based as flake8 prints it. Lines
without a code must stay silent, so every case file is both a positive and a negative fixture.
Files are named by the feature they exercise.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source

CASES_DIR = Path(__file__).resolve().parent.parent / "lint_cases"
CASES = sorted(CASES_DIR.glob("*.py"))
_EXPECTED = re.compile(r"\b(XST\d{3})(\(may\))?(?::\s*(\d+))?")


@dataclass(frozen=True)
class Expected:
    """What a trailing comment asks of one (line, code) finding."""

    may: bool
    #: 1-based column (flake8's display), or None when the comment gives none.
    column: int | None


def expectations(source: str) -> dict[tuple[int, str], Expected]:
    """(line, code) -> whether the message must say "may be", and the column if given."""
    expected: dict[tuple[int, str], Expected] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not token.line.lstrip().startswith("#"):
            for match in _EXPECTED.finditer(token.string):
                column = int(match.group(3)) if match.group(3) else None
                expected[(token.start[0], match.group(1))] = Expected(
                    match.group(2) is not None, column
                )
    return expected


def test_there_are_cases() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    expected = expectations(source)
    findings = analyze_source(source, str(path))
    actual = {(f.line, f.code): f for f in findings}
    missing = sorted(set(expected) - set(actual))
    unexpected = sorted((k, actual[k].message) for k in set(actual) - set(expected))
    assert not missing and not unexpected, f"missing: {missing}\nunexpected: {unexpected}"
    for key, want in expected.items():
        finding = actual[key]
        assert finding.message.startswith(key[1] + " ")
        assert ("may be" in finding.message) == want.may, finding.message
        if want.column is not None:
            assert finding.col + 1 == want.column, (key, finding)


def test_expectation_syntax() -> None:
    source = "x()  # XST101: 5\ny()  # XST111(may)\n"
    assert expectations(source) == {
        (1, "XST101"): Expected(False, 5),
        (2, "XST111"): Expected(True, None),
    }


def test_case_names_say_what_they_test() -> None:
    assert not [p.name for p in CASES if p.stem.startswith("review")]


def test_every_rule_has_positive_cases() -> None:
    from extstream_lint.contract import RULES

    seen = set()
    for path in CASES:
        seen |= {code for _, code in expectations(path.read_text(encoding="utf-8"))}
    assert seen >= set(RULES) - {"XST000"}
