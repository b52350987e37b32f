"""``# noqa`` in the CLI behaves exactly like flake8 running our plugin.

The unit tests pin each rule of flake8's semantics; the differential test runs the real
flake8 (in-process, so the fake analysis reaches the plugin) and ``extstream-lint`` on the
same files and requires identical reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from flake8.main.cli import main as flake8_main

from extstream_lint.findings import Finding
from extstream_lint.frontends.cli import main
from extstream_lint.frontends.noqa import filter_noqa, is_silenced_by

HEADER = "from torch_npu.npu import ExternalStream\n"


@pytest.mark.parametrize(
    ("comment", "code", "silenced"),
    [
        ("x()  # noqa", "XST101", True),
        ("x()  # NOQA", "XST101", True),
        ("x()  # noqa: XST101", "XST101", True),
        ("x()  # noqa:XST101", "XST101", True),
        ("x()  # noqa: XST1", "XST101", True),  # prefix
        ("x()  # noqa: XST", "XST101", True),
        ("x()  # noqa: XST102", "XST101", False),
        ("x()  # noqa: XST102,XST101", "XST101", True),
        ("x()  # noqa: XST102 XST101", "XST101", True),
        ("x()  # noqa: XST10", "XST111", False),
        ("x()  # noqa: E501", "XST101", False),
        ("x()  # some comment", "XST101", False),
        ("x()", "XST101", False),
    ],
)
def test_inline_comment_semantics(comment: str, code: str, silenced: bool) -> None:
    assert is_silenced_by(comment, code) is silenced


def test_noqa_applies_to_the_reported_line_only() -> None:
    source = "a()  # noqa\nb()\n"
    findings = [Finding(1, 0, "XST101", "XST101 x"), Finding(2, 0, "XST101", "XST101 y")]
    assert filter_noqa(findings, source) == [findings[1]]


def test_noqa_spans_multiline_strings_and_backslash_continuations() -> None:
    # flake8 joins the physical lines of one token run (between NL/NEWLINE tokens).
    source = 'y = f("""\n""", ext)  # noqa: XST105\nz = 1 + \\\n    g(ext)  # noqa\n'
    findings = [Finding(1, 4, "XST105", "XST105 a"), Finding(3, 0, "XST101", "XST101 b")]
    assert filter_noqa(findings, source) == []


def test_noqa_inside_brackets_applies_to_its_own_line_only() -> None:
    # Inside brackets every line ends with an NL token, so flake8 keeps them apart.
    source = "y = f(\n    ext,\n)  # noqa: XST105\n"
    findings = [Finding(2, 4, "XST105", "XST105 a")]
    assert filter_noqa(findings, source) == findings


def test_file_level_flake8_noqa_silences_the_file() -> None:
    source = "# flake8: noqa\na()\n"
    assert filter_noqa([Finding(2, 0, "XST101", "XST101 x")], source) == []


def test_flake8_noqa_after_code_does_not_silence_the_file() -> None:
    source = "a()  # flake8: noqa\nb()\n"
    kept = filter_noqa([Finding(2, 0, "XST101", "XST101 x")], source)
    assert kept == [Finding(2, 0, "XST101", "XST101 x")]


def test_cli_honours_noqa_and_disable_noqa(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(
        HEADER
        + "BAD_XST101()  # noqa: XST101\n"
        + "BAD_XST102()  # noqa: XST101\n"
        + "BAD_XST103()  # noqa\n"
    )
    assert main(["m.py"]) == 1
    assert capsys.readouterr().out == "m.py:3:1: XST102 fake finding\n"
    assert main(["--disable-noqa", "m.py"]) == 1
    assert [line.split(": ")[1][:6] for line in capsys.readouterr().out.splitlines()] == [
        "XST101",
        "XST102",
        "XST103",
    ]


def test_everything_silenced_exits_zero(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "BAD_XST101()  # noqa: XST1\n")
    assert main(["m.py"]) == 0
    assert capsys.readouterr().out == ""


DIFFERENTIAL_CASES = {
    "plain.py": "BAD_XST101()\nBAD_XST102()  # noqa\n",
    "codes.py": "BAD_XST101()  # noqa:XST102\nBAD_XST103()  # NoQA: xst103\n"
    "BAD_XST104()  # noqa: XST104,XST105\n",
    "prefix.py": "BAD_XST101()  # noqa: XST1\nBAD_XST001()  # noqa: XST1\n",
    "multiline.py": "x = f(\n    BAD_XST105(),\n    1,\n)  # noqa: XST105\n"
    "y = f(\n    BAD_XST106(),\n)\n",
    "string.py": 's = """\nBAD_XST107()\n"""  # noqa\nt = BAD_XST108()  # noqa : XST108\n',
    "filelevel.py": "# flake8: noqa\nBAD_XST101()\n",
    "fileleveltrailing.py": "BAD_XST101()  # flake8: noqa\n",
    "with.py": "with BAD_XST106():  # noqa: XST106\n    BAD_XST111()\n",
    "continued.py": "x = 1 + \\\n    BAD_XST101()  # noqa\n",
    # issue 43: only \n, \r\n and \r end a line, as flake8 reads files (str.splitlines
    # also breaks on these, which shifted every later noqa lookup by a line)
    "separators.py": "".join(
        f"# {i}: a{c}b\nBAD_XST101()  # noqa\nBAD_XST102()\n"
        for i, c in enumerate("\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029")
    ),
    "stringsilence.py": 's = "\u2028# flake8: noqa"\nBAD_XST101()\n',
}


@pytest.mark.parametrize("disable", [False, True], ids=["noqa", "disable-noqa"])
def test_same_report_as_flake8(
    in_tmp: Path,
    fake_analysis: object,
    capsys: pytest.CaptureFixture[str],
    disable: bool,
) -> None:
    for name, body in DIFFERENTIAL_CASES.items():
        (in_tmp / name).write_text(HEADER + body, encoding="utf-8")
    extra = ["--disable-noqa"] if disable else []
    assert flake8_main(["--isolated", "--select=XST", "-j", "1", *extra, "."]) == 1
    expected = sorted(line.removeprefix("./") for line in capsys.readouterr().out.splitlines())
    assert main(["--isolated", "-j", "1", *extra, "."]) == 1
    actual = sorted(capsys.readouterr().out.splitlines())
    assert expected, "flake8 reported nothing: the plugin did not run"
    assert actual == expected
