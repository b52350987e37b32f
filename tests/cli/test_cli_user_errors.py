"""A user's mistake is one line on stderr that says what is wrong, and exit status 2.

Never a traceback, never "this is a bug in extstream", never a finding that ``ignore`` can
silence into a clean run. Each case below is a mistake a user makes: the exit status and the
whole of stderr are checked, and nothing is linted (stdout stays empty).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main

MISUSE = "import torch\next = torch.npu.ExternalStream(h)\next.synchronize()\n"


def _config(body: str) -> Callable[[Path], None]:
    def write(root: Path) -> None:
        (root / "pyproject.toml").write_text(f"[tool.extstream-lint]\n{body}")

    return write


def _nothing(root: Path) -> None:
    pass


def _directory(name: str) -> Callable[[Path], None]:
    def make(root: Path) -> None:
        (root / name).mkdir()

    return make


def _not_utf8(root: Path) -> None:
    (root / "pyproject.toml").write_bytes(b'[tool.extstream-lint]\nselect = ["\xff"]\n')


CASES = [
    pytest.param(
        _nothing,
        ["missing.py"],
        "no such file or directory: 'missing.py'",
        id="a path that does not exist",
    ),
    pytest.param(
        _config('ignore = ["XST000"]\n'),
        ["m.py", "srcc/"],
        "no such file or directory: 'srcc/'",
        id="a mistyped path, whatever ignore says",
    ),
    pytest.param(
        _nothing,
        ["--output-file", "reports/out.txt", "m.py"],
        "--output-file: cannot write 'reports/out.txt': No such file or directory",
        id="output into a missing directory",
    ),
    pytest.param(
        _directory("reports"),
        ["--output-file", "reports", "m.py"],
        "--output-file: cannot write 'reports': Is a directory",
        id="output onto a directory",
    ),
    pytest.param(
        _nothing,
        ["--output-file", "m.py/out.txt", "m.py"],
        "--output-file: cannot write 'm.py/out.txt': Not a directory",
        id="output under a file",
    ),
    pytest.param(
        # sysfs refuses new files even to root, so this holds however the tests are run
        _nothing,
        ["--output-file", "/sys/extstream-report.txt", "m.py"],
        "--output-file: cannot write '/sys/extstream-report.txt': Permission denied",
        id="output where writing is not allowed",
    ),
    pytest.param(
        _nothing,
        ["--output-file", "/dev/full", "m.py"],
        "--output-file: cannot write '/dev/full': No space left on device",
        id="output onto a full device",
    ),
    pytest.param(
        _directory("conf"),
        ["--config", "conf", "m.py"],
        "--config: not a file: conf",
        id="a directory as --config",
    ),
    pytest.param(
        _nothing,
        ["--config", "nowhere.toml", "m.py"],
        "--config: no such file: nowhere.toml",
        id="a missing --config",
    ),
    pytest.param(
        _not_utf8,
        ["m.py"],
        "pyproject.toml: cannot read TOML: it is not UTF-8 (invalid start byte)",
        id="a configuration that is not UTF-8",
    ),
    pytest.param(
        _config("select = [\n"),
        ["m.py"],
        "pyproject.toml: cannot read TOML: ",
        id="a configuration that is not TOML",
    ),
    pytest.param(
        _config('ignore = "XST102"\n'),
        ["m.py"],
        "ignore must be a list of strings, not 'XST102'",
        id="a string where a list belongs",
    ),
    pytest.param(
        _directory("pkg"),
        ["--stdin-filename", "pkg", "-"],
        "--stdin-filename: 'pkg' is a directory; give the name of the file being linted",
        id="a directory as --stdin-filename",
    ),
    pytest.param(
        _nothing,
        ["--stdin-filename", "a.py", "m.py"],
        "--stdin-filename needs '-' (stdin) as the path",
        id="--stdin-filename without stdin",
    ),
    pytest.param(
        _nothing,
        ["-j", "0", "m.py"],
        "-j/--jobs must be a positive integer or 'auto', not '0'",
        id="no processes",
    ),
]


@pytest.mark.parametrize(("setup", "argv", "expected"), CASES)
def test_a_users_mistake_is_one_line_and_exit_2(
    in_tmp: Path,
    capsys: pytest.CaptureFixture[str],
    setup: Callable[[Path], None],
    argv: list[str],
    expected: str,
) -> None:
    (in_tmp / "m.py").write_text(MISUSE)
    setup(in_tmp)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()  # one line: no traceback
    assert line.startswith("extstream-lint: error: "), line
    assert expected in line, line
    assert "bug" not in line and "Traceback" not in err


def test_a_wrong_output_file_costs_no_lint_run(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import extstream_lint.frontends.cli as cli

    def never(*args: object) -> object:
        raise AssertionError("linted although the report could not be written")

    monkeypatch.setattr(cli, "run", never)
    (in_tmp / "m.py").write_text(MISUSE)
    assert main(["--output-file", "reports/out.txt", "m.py"]) == 2


def test_a_missing_path_is_an_error_even_next_to_files_with_findings(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(MISUSE)
    assert main(["--exit-zero", "m.py", "nope.py", "gone/"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "extstream-lint: error: no such file or directory: 'nope.py', 'gone/'\n"


def test_the_installed_command_says_it_in_one_line(in_tmp: Path) -> None:
    """Through the real entry point, as a user types it: stderr is exactly one line."""
    command = [sys.executable, "-m", "extstream_lint"]
    for argv, expected in (
        (["missing.py"], "extstream-lint: error: no such file or directory: 'missing.py'\n"),
        (
            ["--output-file", "reports/out.txt", "."],
            "extstream-lint: error: --output-file: cannot write 'reports/out.txt': "
            "No such file or directory\n",
        ),
    ):
        done = subprocess.run([*command, *argv], capture_output=True, text=True, cwd=in_tmp)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", expected)
