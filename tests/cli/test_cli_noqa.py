"""``# noqa`` in the CLI behaves exactly like flake8 running our plugin.

The unit tests pin each rule of flake8's semantics; the differential test runs the real
flake8 (in-process, so the fake analysis reaches the plugin) and ``extstream-lint`` on the
same files and requires identical reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flake8.main.cli import main as flake8_main

from extstream_lint.cli import main
from extstream_lint.findings import Finding
from extstream_lint.noqa import filter_noqa, is_silenced_by

HEADER = "from torch_npu.npu import ExternalStream\n"


@pytest.mark.parametrize(
    ("comment", "code", "silenced"),
    [
        ("x()  # noqa", "EXS101", True),
        ("x()  # NOQA", "EXS101", True),
        ("x()  # noqa: EXS101", "EXS101", True),
        ("x()  # noqa:EXS101", "EXS101", True),
        ("x()  # noqa: EXS1", "EXS101", True),  # prefix
        ("x()  # noqa: EXS", "EXS101", True),
        ("x()  # noqa: EXS102", "EXS101", False),
        ("x()  # noqa: EXS102,EXS101", "EXS101", True),
        ("x()  # noqa: EXS102 EXS101", "EXS101", True),
        ("x()  # noqa: EXS10", "EXS111", False),
        ("x()  # noqa: E501", "EXS101", False),
        ("x()  # some comment", "EXS101", False),
        ("x()", "EXS101", False),
    ],
)
def test_inline_comment_semantics(comment: str, code: str, silenced: bool) -> None:
    assert is_silenced_by(comment, code) is silenced


def test_noqa_applies_to_the_reported_line_only() -> None:
    source = "a()  # noqa\nb()\n"
    findings = [Finding(1, 0, "EXS101", "EXS101 x"), Finding(2, 0, "EXS101", "EXS101 y")]
    assert filter_noqa(findings, source) == [findings[1]]


def test_noqa_spans_multiline_strings_and_backslash_continuations() -> None:
    # flake8 joins the physical lines of one token run (between NL/NEWLINE tokens).
    source = 'y = f("""\n""", ext)  # noqa: EXS105\nz = 1 + \\\n    g(ext)  # noqa\n'
    findings = [Finding(1, 4, "EXS105", "EXS105 a"), Finding(3, 0, "EXS101", "EXS101 b")]
    assert filter_noqa(findings, source) == []


def test_noqa_inside_brackets_applies_to_its_own_line_only() -> None:
    # Inside brackets every line ends with an NL token, so flake8 keeps them apart.
    source = "y = f(\n    ext,\n)  # noqa: EXS105\n"
    findings = [Finding(2, 4, "EXS105", "EXS105 a")]
    assert filter_noqa(findings, source) == findings


def test_file_level_flake8_noqa_silences_the_file() -> None:
    source = "# flake8: noqa\na()\n"
    assert filter_noqa([Finding(2, 0, "EXS101", "EXS101 x")], source) == []


def test_flake8_noqa_after_code_does_not_silence_the_file() -> None:
    source = "a()  # flake8: noqa\nb()\n"
    kept = filter_noqa([Finding(2, 0, "EXS101", "EXS101 x")], source)
    assert kept == [Finding(2, 0, "EXS101", "EXS101 x")]


def test_cli_honours_noqa_and_disable_noqa(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(
        HEADER
        + "BAD_EXS101()  # noqa: EXS101\n"
        + "BAD_EXS102()  # noqa: EXS101\n"
        + "BAD_EXS103()  # noqa\n"
    )
    assert main(["m.py"]) == 1
    assert capsys.readouterr().out == "m.py:3:1: EXS102 fake finding\n"
    assert main(["--disable-noqa", "m.py"]) == 1
    assert [line.split(": ")[1][:6] for line in capsys.readouterr().out.splitlines()] == [
        "EXS101",
        "EXS102",
        "EXS103",
    ]


def test_everything_silenced_exits_zero(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "BAD_EXS101()  # noqa: EXS1\n")
    assert main(["m.py"]) == 0
    assert capsys.readouterr().out == ""


DIFFERENTIAL_CASES = {
    "plain.py": "BAD_EXS101()\nBAD_EXS102()  # noqa\n",
    "codes.py": "BAD_EXS101()  # noqa:EXS102\nBAD_EXS103()  # NoQA: exs103\n"
    "BAD_EXS104()  # noqa: EXS104,EXS105\n",
    "prefix.py": "BAD_EXS101()  # noqa: EXS1\nBAD_EXS001()  # noqa: EXS1\n",
    "multiline.py": "x = f(\n    BAD_EXS105(),\n    1,\n)  # noqa: EXS105\n"
    "y = f(\n    BAD_EXS106(),\n)\n",
    "string.py": 's = """\nBAD_EXS107()\n"""  # noqa\nt = BAD_EXS108()  # noqa : EXS108\n',
    "filelevel.py": "# flake8: noqa\nBAD_EXS101()\n",
    "fileleveltrailing.py": "BAD_EXS101()  # flake8: noqa\n",
    "with.py": "with BAD_EXS106():  # noqa: EXS106\n    BAD_EXS111()\n",
    "continued.py": "x = 1 + \\\n    BAD_EXS101()  # noqa\n",
}


@pytest.mark.parametrize("disable", [False, True], ids=["noqa", "disable-noqa"])
def test_same_report_as_flake8(
    in_tmp: Path,
    fake_analysis: object,
    capsys: pytest.CaptureFixture[str],
    disable: bool,
) -> None:
    for name, body in DIFFERENTIAL_CASES.items():
        (in_tmp / name).write_text(HEADER + body)
    extra = ["--disable-noqa"] if disable else []
    assert flake8_main(["--isolated", "--select=EXS", "-j", "1", *extra, "."]) == 1
    expected = sorted(line.removeprefix("./") for line in capsys.readouterr().out.splitlines())
    assert main(["--isolated", "-j", "1", *extra, "."]) == 1
    actual = sorted(capsys.readouterr().out.splitlines())
    assert expected, "flake8 reported nothing: the plugin did not run"
    assert actual == expected
