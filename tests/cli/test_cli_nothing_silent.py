"""A run that checks nothing says so: "checked nothing" must not look like "clean"."""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main

WARNING = "extstream-lint: warning: No Python files found under the given path(s)\n"


@pytest.mark.parametrize(
    "files",
    [
        [],  # an empty directory
        ["README.txt", "data/x.json"],  # a tree without Python files
        ["build/m.py"],  # only excluded ones
        [".venv/pyvenv.cfg", ".venv/lib/m.py"],  # only what a walk skips
    ],
)
def test_no_python_file_is_a_warning(
    in_tmp: Path, files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    tree = in_tmp / "tree"
    tree.mkdir()
    for name in files:
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("x = 1\n")
    assert main(["--extend-exclude", "build", "tree"]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", WARNING)


def test_the_warning_whatever_the_format(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "empty").mkdir()
    assert main(["--format", "json", "empty"]) == 0
    captured = capsys.readouterr()
    assert '"findings": []' in captured.out  # stdout stays one document
    assert captured.err == WARNING


@pytest.mark.parametrize(
    "name",
    [
        "plain.py",  # linted and clean: the pre-filter rejects it, but it was checked
        "stub.pyi",
    ],
)
def test_a_checked_clean_file_is_silent(
    in_tmp: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tree").mkdir()
    (in_tmp / "tree" / name).write_text("x = 1\n")
    assert main(["tree"]) == 0
    assert capsys.readouterr() == ("", "")
    assert main([f"tree/{name}"]) == 0
    assert capsys.readouterr() == ("", "")
