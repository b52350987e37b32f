"""Only regular files are read (issue 32): a FIFO or a device where a project file is
expected is skipped with the reason, never opened for a blocking read.

A FIFO named ``m.py`` made the CLI and flake8 wait forever for a writer. Each run here has
a timeout: a hang fails the test instead of the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.project import modules, sealing, sources
from extstream_lint.project.regular import NotRegular, read_regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")

_ADAPTER = (
    "from torch_npu.npu import ExternalStream\n\n\ndef make(p):\n    return ExternalStream(p)\n"
)
_USER = "from pkg.adapter import make\nimport pkg.pipe\n\n\ndef run(p):\n    make(p).query()\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(sealing.ENV, str(tmp_path / "key"))
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'f'\n", encoding="utf-8")
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "adapter.py").write_text(_ADAPTER, encoding="utf-8")
    (root / "pkg" / "user.py").write_text(_USER, encoding="utf-8")
    os.mkfifo(root / "pkg" / "pipe.py")
    return root


def _run(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", *command], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("cache", [[], ["--no-cache"]], ids=["cache", "no-cache"])
def test_a_fifo_given_on_the_command_line_is_one_xst000(project: Path, cache: list[str]) -> None:
    done = _run(project, "extstream_lint", "--isolated", *cache, "pkg/pipe.py")
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and "XST000" in lines[0], done.stdout
    assert "not a regular file: a FIFO" in lines[0]


def test_a_fifo_in_a_linted_directory_does_not_hang_the_rest(project: Path) -> None:
    done = _run(project, "extstream_lint", "--isolated", "pkg")
    assert "user.py:6:5: XST102" in done.stdout
    assert [line for line in done.stdout.splitlines() if "XST000" in line] == [
        line for line in done.stdout.splitlines() if "pipe.py" in line
    ]
    assert "FIFO" in done.stdout


def test_a_fifo_an_import_names_does_not_hang_flake8(project: Path) -> None:
    done = _run(project, "flake8", "--isolated", "--select=XST", "pkg/user.py")
    assert "XST102" in done.stdout and "XST000" not in done.stdout


def test_read_regular_refuses_without_blocking(project: Path) -> None:
    pipe = str(project / "pkg" / "pipe.py")
    with pytest.raises(NotRegular, match="FIFO"):
        read_regular(pipe)
    with pytest.raises(NotRegular, match="directory"):
        read_regular(str(project / "pkg"))
    with modules.one_run():
        with pytest.raises(OSError, match="FIFO"):
            sources.read_project_file(pipe)
        assert sources.read_text(pipe) is None
    if os.path.exists("/dev/zero"):  # would never end
        with pytest.raises(NotRegular, match="character device"):
            read_regular("/dev/zero")
    # the twin: a regular file is read whole
    assert read_regular(str(project / "pkg" / "adapter.py")) == _ADAPTER.encode()


@pytest.mark.parametrize("name", [".gitignore", ".git"])
def test_a_fifo_among_git_files_does_not_hang_the_walk(project: Path, name: str) -> None:
    """The walk reads ``.gitignore`` files (and ``.git`` when it is a worktree's file):
    one that is a FIFO is skipped like an unreadable one (git skips those too)."""
    os.unlink(project / "pkg" / "pipe.py")
    (project / "pkg" / "user.py").write_text(
        _USER.replace("import pkg.pipe\n", ""), encoding="utf-8"
    )
    os.mkfifo(project / name)
    (project / "pkg" / ".gitignore").write_text("ignored.py\n", encoding="utf-8")
    misuse = "import torch_npu\n\n\ndef f(p):\n    torch_npu.npu.ExternalStream(p).query()\n"
    (project / "pkg" / "ignored.py").write_text(misuse, encoding="utf-8")
    (project / "pkg" / "kept.py").write_text(misuse, encoding="utf-8")
    done = _run(project, "extstream_lint", "--isolated", "pkg")
    assert "user.py:5:5: XST102" in done.stdout, done.stdout
    assert "kept.py:5:5: XST102" in done.stdout
    assert "ignored.py" not in done.stdout  # the regular .gitignore below still applies
