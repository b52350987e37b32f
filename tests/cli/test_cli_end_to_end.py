"""The CLI on real misuse, through the real analysis (no fake): what a user sees."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main

REPO = Path(__file__).resolve().parents[2]


def run_text(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], source: str, *flags: str
) -> tuple[int, list[str]]:
    (in_tmp / "snippet.py").write_text(source)
    status = main(["-j", "1", *flags, "snippet.py"])
    return status, capsys.readouterr().out.splitlines()


def test_synchronize_on_external_stream_is_xst101_at_line_2_col_1(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = run_text(
        in_tmp, capsys, "import torch\next = torch.npu.ExternalStream(h)\next.synchronize()\n"
    )
    assert status == 1
    assert len(out) == 1 and out[0].startswith("snippet.py:3:1: XST101 ")


def test_issue_snippet_without_import(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_text(in_tmp, capsys, "ext = torch.npu.ExternalStream(h)\next.synchronize()\n")
    assert status == 1
    assert len(out) == 1 and out[0].startswith("snippet.py:2:1: XST101 ")


def test_null_pointer_is_xst001(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run_text(in_tmp, capsys, "import torch\ntorch.npu.ExternalStream(0)\n")
    assert status == 1
    assert len(out) == 1 and out[0].startswith("snippet.py:2:1: XST001 ")


def test_noqa_silences_a_real_finding(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = "import torch\next = torch.npu.ExternalStream(h)\next.synchronize()  # noqa: XST101\n"
    assert run_text(in_tmp, capsys, source) == (0, [])
    assert run_text(in_tmp, capsys, source, "--disable-noqa")[0] == 1


def test_fixed_code_is_clean(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = "import torch\next = torch.npu.ExternalStream(h)\ntorch.npu.synchronize()\n"
    assert run_text(in_tmp, capsys, source) == (0, [])


def test_syntax_error_in_a_candidate_file_is_xst000_and_the_run_goes_on(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "broken.py").write_text("ext = torch.npu.ExternalStream(h)\ndef (:\n")
    (in_tmp / "ok.py").write_text("import torch\ntorch.npu.ExternalStream(0)\n")
    assert main(["-j", "1", "."]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1].split()[0] for line in out] == ["XST000", "XST001"]
    # once, as Python would report it (line 2, the caret under "("), not as libcst's parser text
    assert out[0].startswith(
        "broken.py:1:1: XST000 cannot analyse this file "
        "(syntax error at line 2, column 5: invalid syntax)"
    ), out[0]
    assert "libcst" not in out[0] and "bug" not in out[0], out[0]
    assert out[0].count("analys") == 1, "one sentence, not 'could not be analysed' twice"
    assert "report" not in out[0], "a syntax error is the user's to fix, not a bug to report"


def test_libcst_rejecting_a_statement_names_that_statement_not_where_it_gave_up(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """libcst's parser reports the furthest point it reached: for ``(x): int = 0`` that is
    the next statement. The message names the statement it cannot read (issue 41)."""
    source = "ext = torch.npu.ExternalStream(h)\next.query()\n\n\n(x): int = 0\ny = 1\n"
    status, out = run_text(in_tmp, capsys, source)
    assert status == 1
    (line,) = out
    assert "(the statement at line 5; it gave up at line 6, column 6)" in line, line


def test_valid_python_libcst_cannot_parse_says_so_without_libcsts_internal_error(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import libcst

    source = "(x): int = 0\next = torch.npu.ExternalStream(h)\next.query()\n"
    with pytest.raises(libcst.ParserSyntaxError):  # the libcst limit this message stands for
        libcst.parse_module(source)
    status, out = run_text(in_tmp, capsys, source)
    assert status == 1
    (line,) = out
    libcst_version = _version("libcst")
    assert line.startswith(
        f"snippet.py:1:1: XST000 cannot analyse this file (libcst {libcst_version} cannot "
        "parse a construct that Python accepts (the statement at line 1; it gave up at line 2, "
        "column 6))"
    ), line
    assert "Syntax Error @" not in line and "expected one of" not in line, line
    for exclusion in ("'# noqa: XST000' on line 1", "per-file-ignores", "exclude"):
        assert exclusion in line, line  # how to exclude the file
    # and the exclusion works as said
    source = source.replace("= 0\n", "= 0  # noqa: XST000\n", 1)
    assert run_text(in_tmp, capsys, source) == (0, [])


def _version(distribution: str) -> str:
    from importlib import metadata

    return metadata.version(distribution)


def test_bundled_example_with_every_format(capsys: pytest.CaptureFixture[str]) -> None:
    """examples/interop.py marks each expected finding with a trailing '# XSTnnn'."""
    example = REPO / "examples" / "interop.py"
    expected = sorted(
        (number, code)
        for number, line in enumerate(example.read_text().splitlines(), start=1)
        for code in re.findall(r"# (XST\d{3})", line)
    )
    assert main(["--format", "json", str(example)]) == 1
    document = json.loads(capsys.readouterr().out)
    assert sorted((f["line"], f["code"]) for f in document["findings"]) == expected
    assert main([str(REPO / "examples" / "interop_fixed.py")]) == 0


def test_parallel_real_analysis_matches_serial(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for n in range(6):
        (in_tmp / f"m{n}.py").write_text(
            f"import torch\next = torch.npu.ExternalStream(h{n})\n"
            + "x = 1\n" * n
            + "ext.synchronize()\next.query()\n"
        )
    assert main(["-j", "1", "."]) == 1
    serial = capsys.readouterr().out
    assert main(["-j", "2", "."]) == 1
    assert capsys.readouterr().out == serial
    assert serial.count("XST101") == 6 and serial.count("XST102") == 6


def test_noqa_on_the_with_line_silences_a_graph_capture(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (
        "import torch\next = torch.npu.ExternalStream(h)\n"
        "with torch.npu.graph(\n    g, stream=ext\n):  # noqa: XST106\n    y = 1\n"
    )
    status, out = run_text(in_tmp, capsys, source)
    assert status == 1 and len(out) == 1  # reported on the `with` line, not where noqa is
    assert out[0].startswith("snippet.py:3:") and ": XST106 " in out[0]
    fixed = source.replace("with torch.npu.graph(\n", "with torch.npu.graph(  # noqa: XST106\n")
    assert run_text(in_tmp, capsys, fixed) == (0, [])


def test_same_findings_as_the_flake8_plugin_on_the_golden_cases(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both adapters share the pre-filter and the analysis: their reports must agree.

    Files this Python cannot compile are left out: flake8 stops at its own E999 there,
    while the CLI (which needs no ``ast``) still reports them.
    """
    from flake8.main.cli import main as flake8_main

    cases = REPO / "tests" / "lint_cases"
    monkeypatch.chdir(cases)
    compiles = set()
    for path in sorted(cases.glob("*.py")):
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        except SyntaxError:
            continue
        compiles.add(path.name)
    assert len(compiles) >= 5
    # An explicit --select=XST turns the opt-in codes on in both (flake8's decision rules).
    flake8_main(["--isolated", "--select=XST", "-j", "1", *sorted(compiles)])
    expected = sorted(capsys.readouterr().out.splitlines())
    main(["--isolated", "--select=XST", "-j", "1", *sorted(compiles)])
    actual = sorted(capsys.readouterr().out.splitlines())
    assert len(expected) > 50
    assert actual == expected
