"""Golden cases: every file under tests/lint_cases states its expected findings inline.

A trailing comment ``# XST101`` on a line of code means "XST101 is reported on this
line"; ``# XST101(may)`` means it is reported with "may be" wording. Lines without a
code must stay silent, so every case file is both a positive and a negative fixture.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source

CASES_DIR = Path(__file__).resolve().parent.parent / "lint_cases"
CASES = sorted(CASES_DIR.glob("*.py"))
_EXPECTED = re.compile(r"\b(XST\d{3})(\(may\))?")


def expectations(source: str) -> dict[tuple[int, str], bool]:
    """(line, code) -> whether the message must say "may be"."""
    expected: dict[tuple[int, str], bool] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and not token.line.lstrip().startswith("#"):
            for match in _EXPECTED.finditer(token.string):
                expected[(token.start[0], match.group(1))] = match.group(2) is not None
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
    for key, may in expected.items():
        message = actual[key].message
        assert message.startswith(key[1] + " ")
        assert ("may be" in message) == may, message


def test_every_rule_has_positive_cases() -> None:
    from extstream_lint.contract import RULES

    seen = set()
    for path in CASES:
        seen |= {code for _, code in expectations(path.read_text(encoding="utf-8"))}
    assert seen >= set(RULES) - {"XST000"}
