"""What a ruff user reaches for (issue 41): one-line usage errors, ``--output-format``,
``full`` output, ``-q``, ``--add-noqa``, ``--show-settings``, ``--show-files`` and the rule
list. Each runs the real analysis on a small file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.contract import RULES
from extstream_lint.frontends.cli import main

MISUSE = (
    "import torch\n"
    "ext = torch.npu.ExternalStream(handle)\n"
    "ext.query()\n"
    "\tif ready: ext.query()  # noqa: XST101\n"
)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--no-cache", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--format", "xml"], "invalid choice: 'xml'"),
        (["-j"], "expected one argument"),
    ],
)
def test_a_bad_command_line_is_one_line(in_tmp: Path, argv: list[str], says: str) -> None:
    done = _cli(".", *argv, cwd=in_tmp)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith("extstream-lint: error: ") and says in done.stderr


def test_output_format_is_format(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "m.py").write_text(MISUSE.replace("\tif ready: ", ""))
    assert main(["--no-cache", "--format", "json", "m.py"]) == 1
    by_format = capsys.readouterr().out
    assert main(["--no-cache", "--output-format", "json", "m.py"]) == 1
    assert capsys.readouterr().out == by_format != ""


def test_full_output_shows_the_line_and_a_caret(in_tmp: Path) -> None:
    (in_tmp / "m.py").write_text(
        "import torch\next = torch.npu.ExternalStream(h)\nx = ext.query()\n"
    )
    done = _cli("--output-format", "full", "m.py", cwd=in_tmp)
    lines = done.stdout.splitlines()
    assert lines[0].startswith("m.py:3:5: XST102 ")
    assert lines[1:5] == ["  |", "3 | x = ext.query()", "  |     ^ XST102", "  |"]


def test_full_output_keeps_tabs_under_the_caret(in_tmp: Path) -> None:
    (in_tmp / "m.py").write_text(
        "import torch\next = torch.npu.ExternalStream(h)\nif ext:\n\tx = ext.query()\n"
    )
    lines = _cli("--output-format", "full", "m.py", cwd=in_tmp).stdout.splitlines()
    assert lines[2:4] == ["4 | \tx = ext.query()", "  | \t    ^ XST102"]


def test_quiet_prints_the_findings_only(in_tmp: Path) -> None:
    (in_tmp / "m.py").write_text(
        "import torch\next = torch.npu.ExternalStream(h)\next.synchronize()\n"
    )
    loud = _cli("m.py", cwd=in_tmp)
    assert "Found 1 error." in loud.stderr
    quiet = _cli("-q", "m.py", cwd=in_tmp)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (1, loud.stdout, "")
    (in_tmp / "empty").mkdir()
    assert _cli("-q", "empty", cwd=in_tmp).stderr == ""  # not even "No Python files found"


def test_add_noqa_silences_each_finding_by_its_code(in_tmp: Path) -> None:
    path = in_tmp / "m.py"
    path.write_bytes(
        b"import torch\r\n"
        b"ext = torch.npu.ExternalStream(h)\r\n"
        b"ext.query()   \r\n"
        b"ext.synchronize()  # noqa: XST102\r\n"
        b"ext.query()  # noqa\r\n"
    )
    done = _cli("--add-noqa", "m.py", cwd=in_tmp)
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "Added 2 noqa directives.\n"
    assert path.read_bytes() == (
        b"import torch\r\n"
        b"ext = torch.npu.ExternalStream(h)\r\n"
        b"ext.query()  # noqa: XST102\r\n"
        b"ext.synchronize()  # noqa: XST102, XST101\r\n"
        b"ext.query()  # noqa\r\n"
    )
    assert _cli("m.py", cwd=in_tmp).returncode == 0
    again = _cli("--add-noqa", "m.py", cwd=in_tmp)
    assert again.stderr == "Added 0 noqa directives.\n"


def test_add_noqa_with_fix_is_a_usage_error(in_tmp: Path) -> None:
    (in_tmp / "m.py").write_text("x = 1\n")
    done = _cli("--add-noqa", "--fix", "m.py", cwd=in_tmp)
    assert done.returncode == 2 and "--add-noqa" in done.stderr


def test_show_settings_says_where_they_come_from(in_tmp: Path) -> None:
    (in_tmp / "pyproject.toml").write_text('[tool.extstream-lint]\njobs = 3\nignore = ["XST1"]\n')
    done = _cli("--show-settings", cwd=in_tmp)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == f"# configuration: {in_tmp / 'pyproject.toml'}"
    assert "jobs = 3" in lines and "ignore = ['XST1']" in lines
    enabled = next(line for line in lines if line.startswith("enabled = "))
    assert "XST101" not in enabled and "XST001" in enabled


def test_show_files_lists_what_a_run_would_walk(in_tmp: Path) -> None:
    (in_tmp / "a.py").write_text("x = 1\n")
    (in_tmp / "pkg").mkdir()
    (in_tmp / "pkg" / "b.pyi").write_text("x: int\n")
    (in_tmp / ".venv").mkdir()
    (in_tmp / ".venv" / "c.py").write_text("x = 1\n")
    done = _cli("--show-files", cwd=in_tmp)
    assert (done.returncode, done.stdout) == (0, "a.py\npkg/b.pyi\n")


def test_explain_without_a_code_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--explain"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("XST")]
    assert listed == list(RULES)
    assert "XST211  off  fix " in out and "XST101  on   fix*" in out
