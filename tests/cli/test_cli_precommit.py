"""The README's pre-commit configurations, run for real, so the documentation cannot drift.

The README's YAML block is a ``repo: local`` hook that runs the installed ``extstream-lint``:
it is run verbatim, with this environment's scripts on ``PATH``, as a user who installed
extstream runs it. The pinned routes the README describes in prose are run too: the
repository's own hook (``.pre-commit-hooks.yaml``) from a clone of this checkout (with the
working tree's current files committed into it, so uncommitted edits are tested too), which
pre-commit installs into a fresh environment, and the ``additional_dependencies`` line of
flake8's hook, installed the way pre-commit would: with pip into a fresh environment next to
flake8 (flake8's own repository is on GitHub, which this machine does not reach).

Both need the package index for libcst and flake8 and take a while: marked ``slow``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"

#: The placeholders of the README's prose; the tests fail if they change without the tests.
PLACEHOLDER_URL = "<that URL>"
PLACEHOLDER_REV = "<commit>"
#: The pinned hook the README describes: ``repo:`` a clone, ``rev:`` a commit, the hook's id.
PINNED = f"""repos:
  - repo: {PLACEHOLDER_URL}
    rev: {PLACEHOLDER_REV}
    hooks:
      - id: extstream-lint
"""

BAD = "import torch\n\next = torch.npu.ExternalStream(handle)\next.synchronize()\n"
GOOD = "import torch\n\nx = torch.ones(2)\n"

pytestmark = pytest.mark.slow


def readme_yaml_blocks(section: str) -> list[str]:
    """The ```yaml blocks of the README section whose heading is ``section``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{section}\n")
    end = text.find("\n#", start + len(section) + 2)
    return re.findall(r"```yaml\n(.*?)```", text[start:end], flags=re.DOTALL)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def clone_of_this_checkout(destination: Path) -> tuple[Path, str]:
    """A clone with the working tree's files committed on top: (path, commit)."""
    git(REPO.parent, "clone", "--quiet", "--no-local", str(REPO), str(destination))
    listed = git(REPO, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    for name in filter(None, listed.split("\0")):
        source, target = REPO / name, destination / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif target.exists():  # deleted in the working tree
            target.unlink()
    git(destination, "add", "-A")
    if git(destination, "status", "--porcelain"):
        git(destination, "commit", "--quiet", "-m", "working tree under test")
    return destination, git(destination, "rev-parse", "HEAD").strip()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),  # a clean cache
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def substitute(block: str, url: str, rev: str) -> str:
    assert PLACEHOLDER_URL in block and PLACEHOLDER_REV in block, block
    return block.replace(PLACEHOLDER_URL, url).replace(PLACEHOLDER_REV, rev)


def pre_commit(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.parametrize("route", ["the README's local hook", "a pinned clone"])
def test_readme_hook_block_fails_on_misuse_and_passes_after_noqa_or_fix(
    tmp_path: Path, env: dict[str, str], route: str
) -> None:
    assert shutil.which("git"), "git is required by pre-commit"
    (local,) = readme_yaml_blocks("### pre-commit")
    if route == "a pinned clone":
        prose = README.read_text(encoding="utf-8")
        assert "`id: extstream-lint`" in prose and "`rev:` a commit" in prose
        clone, commit = clone_of_this_checkout(tmp_path / "extstream")
        config = substitute(PINNED, str(clone), commit)
    else:
        assert "repo: local" in local
        config = local
        scripts = os.path.dirname(shutil.which("extstream-lint") or sys.executable)
        env = {**env, "PATH": f"{scripts}{os.pathsep}{env.get('PATH', '')}"}
    repo = tmp_path / "user-repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(config)
    (repo / "bad.py").write_text(BAD)
    (repo / "good.py").write_text(GOOD)
    git(repo, "add", ".")

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


def test_readme_flake8_hook_dependency_installs_the_plugin(tmp_path: Path) -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = r"add `(extstream @ git\+[^`]*)` to its `additional_dependencies`"
    (spelled,) = re.findall(said, text)
    clone, commit = clone_of_this_checkout(tmp_path / "extstream")
    dependency = substitute(spelled, f"file://{clone}", commit)

    # what pre-commit builds for the flake8 hook: a fresh environment with a current pip (the
    # pip that CPython 3.11 bundles rejects a "name @ git+file://" requirement)
    environment = tmp_path / "hook-env"
    venv.EnvBuilder(with_pip=True, upgrade_deps=True).create(environment)
    python = environment / "bin" / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "flake8", dependency],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    (tmp_path / "bad.py").write_text(BAD)
    run = subprocess.run(
        [python, "-m", "flake8", "--isolated", "bad.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "bad.py:4:1: XST101 " in run.stdout, run.stdout
