"""The conformance suite's tests: one per twin of each case, the entry points, the page.

The cases are linted once per test process (a session fixture: one CLI run and one flake8 run
over every section, and one flake8 run per sampled file), then each twin's test reads its
verdict. Rows of :data:`tests.conformance.gaps.KNOWN_GAPS` are strict xfails: they fail the
suite as soon as the analysis starts following the construct, until the row is deleted.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conformance import matrix
from tests.conformance.gaps import KNOWN_GAPS
from tests.conformance.matrix import DOC, render, table_disagreements
from tests.conformance.suite import (
    _OR,
    FIXTURES,
    NEGATIVE,
    POSITIVE,
    SECTIONS,
    Case,
    Measurement,
    expectations,
    load_cases,
    verdict,
)

#: One worker measures the suite for both modules (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("conformance-measured")

CASES = load_cases()
_BY_ID = {case.id: case for case in CASES}


def _params(twin: str) -> list[object]:
    params = []
    for case in CASES:
        marks = []
        if not case.runs_here:
            version = ".".join(map(str, case.section.min_python))
            marks.append(pytest.mark.skip(reason=f"this Python cannot parse it (needs {version})"))
        reason = KNOWN_GAPS.get((case.id, twin))
        if reason is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        params.append(pytest.param(case, id=case.id, marks=marks))
    return params


@pytest.mark.parametrize("case", _params(POSITIVE))
def test_positive_twin_is_reported(case: Case, measured: Measurement) -> None:
    missing = verdict(case, measured).missing
    assert not missing, f"{case.construct}: not reported: {sorted(missing)}"


@pytest.mark.parametrize("case", _params(NEGATIVE))
def test_negative_twin_is_silent(case: Case, measured: Measurement) -> None:
    unexpected = verdict(case, measured).unexpected
    assert not unexpected, f"{case.construct}: reported: {sorted(unexpected)}"


def test_flake8_over_the_tree_reports_what_the_cli_does(measured: Measurement) -> None:
    assert measured.flake8_tree == measured.cli


def test_flake8_one_file_at_a_time_reports_what_the_cli_does(measured: Measurement) -> None:
    assert len(measured.flake8_each) >= len(SECTIONS)
    for path, found in measured.flake8_each.items():
        assert found == {key for key in measured.cli if key[0] == path}, path


@pytest.mark.skipif(
    not all(case.runs_here for case in CASES), reason="this Python cannot parse every case"
)
def test_docs_conformance_md_is_what_the_suite_measures(measured: Measurement) -> None:
    assert DOC.read_text(encoding="utf-8") == render(CASES, measured), (
        "docs/conformance.md is stale: run `python -m tests.conformance --write`"
    )


def test_enough_cases_each_with_both_twins() -> None:
    assert len(CASES) >= 150
    assert not [c.id for c in CASES if not c.expected], "a case without a positive twin"
    assert not [c.id for c in CASES if not c.has_negative], "a case without '# negative:'"
    assert not [c.id for c in CASES if not c.construct], "a case that does not name its construct"
    assert {c.section.folder for c in CASES} == {s.folder for s in SECTIONS}
    assert {p.name for p in FIXTURES.iterdir()} == {s.folder for s in SECTIONS}


def test_imports_and_helpers_have_cross_module_cases() -> None:
    multi = [c for c in CASES if c.multi_module]
    assert len([c for c in multi if c.section.folder == "imports"]) >= 10
    assert len({c.section.folder for c in multi}) >= 3


def test_table_disagreements_name_the_rows_to_change(
    measured: Measurement, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert table_disagreements(CASES, measured) == []
    # A row listed as a miss whose case is found, and a case found today pretended lost:
    # the table may be empty, so the listed row is made up here.
    fixed = _BY_ID["classes/base_in_module_override"]
    broken = _BY_ID["calls/positional"]
    monkeypatch.setattr(matrix, "KNOWN_GAPS", {(fixed.id, POSITIVE): "pretended a miss"})
    pretend = Measurement(cli=set(fixed.expected), flake8_tree=set())
    notes = table_disagreements([fixed, broken], pretend)
    assert notes == [
        f"gaps.py: ('{fixed.id}', POSITIVE) now passes: delete the row",
        "gaps.py: ('calls/positional', POSITIVE) fails and is not listed",
    ]


def test_every_known_gap_names_a_case_and_a_twin() -> None:
    for case_id, twin in KNOWN_GAPS:
        assert case_id in _BY_ID, case_id
        assert twin in (POSITIVE, NEGATIVE), twin


def test_every_case_is_valid_python_for_its_section() -> None:
    for case in CASES:
        if case.runs_here:
            for rel in case.files:
                compile((FIXTURES / rel).read_bytes(), rel, "exec", dont_inherit=True)


def test_an_or_line_accepts_the_expected_finding_instead() -> None:
    case = replace(
        _BY_ID["classes/attribute_from_parameter"],
        expected=frozenset({("c.py", 20, "XST101")}),
        alternatives=frozenset({("c.py", 11, "XST101")}),
        files=("c.py",),
    )

    def judged(*found: tuple[str, int, str]) -> tuple[bool, bool]:
        v = verdict(case, Measurement(cli=set(found), flake8_tree=set()))
        return v.positive, v.negative

    assert judged(("c.py", 20, "XST101")) == (True, True)
    assert judged(("c.py", 11, "XST101")) == (True, True)
    assert judged(("c.py", 11, "XST101"), ("c.py", 20, "XST101")) == (True, True)
    assert judged(("c.py", 11, "XST102")) == (False, False)
    assert judged(("c.py", 12, "XST101")) == (False, False)
    assert judged() == (False, True)


def test_expectation_syntax() -> None:
    source = "x()  # expect: XST101\ny()  # expect: XST103, XST104\nz()  # XST105\n"
    assert expectations(source, "f.py") == {
        ("f.py", 1, "XST101"),
        ("f.py", 2, "XST103"),
        ("f.py", 2, "XST104"),
    }
    assert expectations("x()  # or: XST101\ny()  # expect: XST102\n", "f.py", _OR) == {
        ("f.py", 1, "XST101")
    }
