"""Import roots by default as ruff's (``.`` and ``src`` of the project root): a ``src/``
layout with ``tests/`` beside it gives its findings with no configuration, through both
front ends; ``src = [...]`` still replaces them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main

HELPER = "import torch\n\n\ndef make_ext(handle):\n    return torch.npu.{ctor}\n"
TEST = "from pkg.helper import make_ext\n\n\ndef test_it(h):\n    make_ext(h).synchronize()\n"


def _layout(root: Path, ctor: str = "ExternalStream(handle)", marker: str = "pyproject") -> None:
    if marker == "pyproject":
        (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    elif marker == "git":
        (root / ".git").mkdir()
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "helper.py").write_text(HELPER.format(ctor=ctor))
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text(TEST)


@pytest.mark.parametrize("marker", ["pyproject", "git"])
def test_a_src_layout_needs_no_configuration(
    in_tmp: Path, marker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _layout(in_tmp, marker=marker)
    assert main(["--no-cache", "tests"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        "tests/test_x.py:5:5: XST101 synchronize() on an ExternalStream (returned by make_ext()"
    )


def test_from_a_subdirectory_too(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _layout(in_tmp)
    (in_tmp / "tests" / "deep").mkdir()
    (in_tmp / "tests" / "test_x.py").rename(in_tmp / "tests" / "deep" / "test_x.py")
    assert main(["--no-cache", str(in_tmp / "tests" / "deep" / "test_x.py")]) == 1


def test_an_ordinary_stream_from_src_is_not_flagged(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _layout(in_tmp, ctor="Stream()")
    assert main(["--no-cache", "tests"]) == 0
    assert capsys.readouterr().out == ""


def test_configured_src_replaces_the_defaults(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _layout(in_tmp)
    (in_tmp / "pyproject.toml").write_text('[tool.extstream-lint]\nsrc = ["lib"]\n')
    (in_tmp / "lib").mkdir()
    assert main(["--no-cache", "tests"]) == 0  # as in ruff: src = [...] is the whole list
    (in_tmp / "pyproject.toml").write_text('[tool.extstream-lint]\nsrc = ["src"]\n')
    assert main(["--no-cache", "tests"]) == 1


def test_outside_any_project_no_default_root_is_invented(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _layout(in_tmp, marker="none")
    assert main(["--no-cache", "tests"]) == 0


def test_flake8_finds_it_too(tmp_path: Path) -> None:
    _layout(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=XST", "tests/test_x.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.stdout.startswith(
        "tests/test_x.py:5:5: XST101 synchronize() on an ExternalStream (returned by make_ext()"
    )


def test_a_helper_in_a_src_layout_is_named_by_a_path_that_opens(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message names the helper's line by a path from the working directory, the one
    the report's own paths are relative to: ``src/pkg/sink.py:5``, not ``pkg/sink.py:5``
    (relative to the import root, which no one can open from the project root)."""
    _layout(in_tmp)
    (in_tmp / "src" / "pkg" / "sink.py").write_text(
        "import torch\n\n\ndef wait_on(stream):\n    stream.synchronize()\n"
    )
    (in_tmp / "tests" / "test_y.py").write_text(
        "import torch\nfrom pkg.sink import wait_on\n\nwait_on(torch.npu.ExternalStream(h))\n"
    )
    assert main(["--no-cache", "tests/test_y.py"]) == 1
    out = capsys.readouterr().out
    assert "(src/pkg/sink.py:5)" in out, out
    assert (in_tmp / "src/pkg/sink.py").is_file()
