"""The pre-commit hook, for real: ``pre-commit try-repo`` on this checkout, clean cache.

``try-repo`` installs this checkout (with its uncommitted changes to tracked files) into a
fresh pre-commit environment, exactly as a user's ``rev:`` would, so this catches a broken
``.pre-commit-hooks.yaml``, entry point or packaging. It needs PyPI for libcst and flake8
and takes a while: marked ``slow`` (CI runs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

BAD = "import torch\n\next = torch.npu.ExternalStream(handle)\next.synchronize()\n"
GOOD = "import torch\n\nx = torch.ones(2)\n"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def pre_commit(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "extstream-lint"]
    return subprocess.run(
        [*command, "--all-files", "--color=never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
def test_hook_fails_on_misuse_and_passes_after_noqa_or_fix(tmp_path: Path) -> None:
    assert shutil.which("git"), "git is required by pre-commit"
    repo = tmp_path / "user-repo"
    repo.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),  # a clean cache
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    git(repo, "init", "-q")
    (repo / "bad.py").write_text(BAD)
    (repo / "good.py").write_text(GOOD)
    git(repo, "add", "bad.py", "good.py")

    failed = pre_commit(repo, env)
    report = failed.stdout + failed.stderr
    assert failed.returncode == 1, report
    assert "bad.py:4:1: XST101 " in report, report
    assert "good.py" not in report, report

    (repo / "bad.py").write_text(BAD.replace("synchronize()\n", "synchronize()  # noqa: XST101\n"))
    git(repo, "add", "bad.py")
    silenced = pre_commit(repo, env)
    assert silenced.returncode == 0, silenced.stdout + silenced.stderr
    assert "Passed" in silenced.stdout

    (repo / "bad.py").write_text(BAD.replace("ext.synchronize()", "torch.npu.synchronize()"))
    git(repo, "add", "bad.py")
    fixed = pre_commit(repo, env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
