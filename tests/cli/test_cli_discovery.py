"""What a run without paths walks: never caches, environments, build output or what git ignores.

A no-path run in a checkout after the test command must not lint the torch-npu wheel the
tests unpack into ``.cache/`` (thousands of foreign files), a virtual environment under any
name, or extstream's own ``.extstream_cache/``. Files named on the command line are linted
wherever they are, as in ruff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main
from extstream_lint.project.discovery import DEFAULT_EXCLUDES

REPO = Path(__file__).resolve().parents[2]
HEADER = "from torch_npu.npu import ExternalStream\n"
FOUND = HEADER + "BAD_XST101()\n"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def linted(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The files the last run reported (every file written with FOUND has one finding)."""
    return sorted({line.split(":", 1)[0] for line in capsys.readouterr().out.splitlines()})


def test_a_no_path_run_skips_cache_venv_and_extstream_cache(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / ".git").mkdir()
    (in_tmp / ".gitignore").write_text((REPO / ".gitignore").read_text())  # this repository's
    write(
        in_tmp,
        {
            "pkg/a.py": FOUND,
            ".cache/torch_npu/npu/streams.py": FOUND,  # the unpacked wheel
            "envs/py311/pyvenv.cfg": "home = /usr/bin\n",  # a venv under any name
            "envs/py311/lib/site.py": FOUND,
            ".extstream_cache/0.1.0/x.py": FOUND,
        },
    )
    assert main([]) == 1
    assert linted(capsys) == ["pkg/a.py"]


@pytest.mark.parametrize(
    "name",
    [
        "build",
        "dist",
        "site-packages",
        "_build",
        "buck-out",
        ".pytype",
        ".ipynb_checkpoints",
        ".vscode",
        ".pyenv",
        ".extstream_cache",
        ".venv",
        ".git",
    ],
)
def test_ruffs_default_excludes_are_never_entered(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert name in DEFAULT_EXCLUDES
    write(in_tmp, {"a.py": FOUND, f"{name}/x.py": FOUND, f"deep/{name}/y.py": FOUND})
    assert main(["--no-respect-gitignore", "."]) == 1  # the built-in list, not .gitignore
    assert linted(capsys) == ["a.py"]


def test_the_repositorys_gitignore_lists_the_test_cache_and_a_venv() -> None:
    lines = (REPO / ".gitignore").read_text().splitlines()
    assert ".cache/" in lines and ".venv/" in lines


def test_nested_gitignore_files_deeper_wins_and_info_exclude(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        in_tmp,
        {
            ".git/info/exclude": "scratch/\n",
            ".gitignore": "gen_*.py\nout/\n",
            "pkg/.gitignore": "!gen_kept.py\nlocal.py\n",
            "a.py": FOUND,
            "gen_a.py": FOUND,
            "out/b.py": FOUND,
            "scratch/s.py": FOUND,
            "pkg/gen_b.py": FOUND,
            "pkg/gen_kept.py": FOUND,
            "pkg/local.py": FOUND,
            "pkg/sub/local.py": FOUND,
            "pkg/sub/c.py": FOUND,
        },
    )
    assert main(["."]) == 1
    assert linted(capsys) == ["a.py", "pkg/gen_kept.py", "pkg/sub/c.py"]
    # walking a subdirectory: the rules of the directories above it still apply
    assert main(["pkg"]) == 1
    assert linted(capsys) == ["pkg/gen_kept.py", "pkg/sub/c.py"]
    # the switch, on the command line and in the configuration
    assert main(["--no-respect-gitignore", "."]) == 1
    everything = linted(capsys)
    assert len(everything) == 9 and "scratch/s.py" in everything
    (in_tmp / "pyproject.toml").write_text("[tool.extstream-lint]\nrespect-gitignore = false\n")
    assert main(["."]) == 1
    assert linted(capsys) == everything
    assert main(["--respect-gitignore", "."]) == 1  # the flag wins over the file
    assert linted(capsys) == ["a.py", "pkg/gen_kept.py", "pkg/sub/c.py"]


def test_a_worktrees_info_exclude_is_the_main_repositorys(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a ``git worktree`` checkout ``.git`` is a file naming the worktree's git directory,
    whose ``commondir`` leads to the repository's ``info/exclude``."""
    write(
        in_tmp,
        {
            "main/.git/info/exclude": "scratch/\n",
            "main/.git/worktrees/wt/commondir": "../..\n",
            "wt/.git": f"gitdir: {in_tmp / 'main/.git/worktrees/wt'}\n",
            "wt/a.py": FOUND,
            "wt/scratch/s.py": FOUND,
        },
    )
    assert main(["wt"]) == 1
    assert linted(capsys) == ["wt/a.py"]


def test_named_files_and_directories_are_linted_though_ignored(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / ".git").mkdir()
    write(
        in_tmp,
        {
            ".gitignore": ".cache/\n",
            ".cache/w/x.py": FOUND,
            ".cache/w/y.py": FOUND,
            "venv/v.py": FOUND,
        },
    )
    assert main([".cache/w/x.py", "venv/v.py"]) == 1
    assert linted(capsys) == [".cache/w/x.py", "venv/v.py"]
    assert main([".cache"]) == 1  # naming an ignored directory asks for it
    assert linted(capsys) == [".cache/w/x.py", ".cache/w/y.py"]


def test_gitignore_inside_the_walked_tree_applies_without_a_repository(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unpacked source archive has its .gitignore but no .git: its build output is still
    not the project's code."""
    write(
        in_tmp, {"src/.gitignore": "generated/\n", "src/a.py": FOUND, "src/generated/g.py": FOUND}
    )
    assert main(["src"]) == 1
    assert linted(capsys) == ["src/a.py"]
