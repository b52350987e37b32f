"""``--cache-dir`` / ``cache-dir`` / ``$EXTSTREAM_CACHE_DIR``: one directory for every project's
cache, as ruff's ``--cache-dir`` (issue 41). Run as a user would, in a subprocess: the
setting is process-wide."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HELPER = "import torch_npu\n\n\ndef make(h):\n    return torch_npu.npu.ExternalStream(h)\n"
MAIN = "from helper import make\n\nmake(7).synchronize()\n"


def project(root: Path, config: str = "") -> Path:
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(config)
    (root / "helper.py").write_text(HELPER)
    (root / "main.py").write_text(MAIN)
    return root


def lint(cwd: Path, *args: str, env: dict[str, str] | None = None) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "-j", "1", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stdout.splitlines()


def pickles(directory: Path) -> list[Path]:
    return sorted(directory.rglob("*.pickle"))


def test_the_flag_keeps_each_projects_cache_below_it_and_none_in_the_project(
    tmp_path: Path,
) -> None:
    first, second = project(tmp_path / "a"), project(tmp_path / "b")
    shared = tmp_path / "shared"
    out_a = lint(first, "--cache-dir", str(shared), ".")
    assert any("XST101" in line for line in out_a), out_a
    lint(second, "--cache-dir", str(shared), ".")
    assert not (first / ".extstream_cache").exists()
    assert not (second / ".extstream_cache").exists()
    per_project = [p for p in shared.iterdir() if p.is_dir()]
    assert len(per_project) == 2, per_project  # one directory each: never shared entries
    assert all(pickles(p) for p in per_project)
    # a second run reads what the first kept, and says the same
    assert lint(first, "--cache-dir", str(shared), ".") == out_a
    # without the flag, the project's own directory as before
    assert lint(first, ".") == out_a
    assert pickles(first / ".extstream_cache")


@pytest.mark.parametrize("how", ["config", "environment"])
def test_the_configuration_and_the_environment_say_the_same(tmp_path: Path, how: str) -> None:
    config = '[tool.extstream-lint]\ncache-dir = "../cache"\n' if how == "config" else ""
    root = project(tmp_path / "p", config)
    env = {"EXTSTREAM_CACHE_DIR": str(tmp_path / "cache")} if how == "environment" else None
    lint(root, ".", env=env)
    assert not (root / ".extstream_cache").exists()
    assert pickles(tmp_path / "cache")


def test_a_bad_cache_dir_in_the_configuration_is_a_one_line_error(tmp_path: Path) -> None:
    root = project(tmp_path / "p", "[tool.extstream-lint]\ncache-dir = 3\n")
    proc = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "cache-dir must be a directory name" in proc.stderr, proc.stderr
