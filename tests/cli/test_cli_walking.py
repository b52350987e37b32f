"""Walking the tree and keeping the cache (issue 43, item 7): nothing the tree holds ends
the run or goes unsaid, and the cache neither follows a committed link nor grows forever.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from extstream_lint.frontends.cli import main
from extstream_lint.project import sources as sources_module

STREAM = "import torch\next = torch.npu.ExternalStream(h)\next.synchronize()\n"


def test_a_tree_1500_directories_deep_is_walked(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``os.walk`` recursed (before Python 3.12): about 1,000 levels ended the run with
    RecursionError, "internal error", every finding lost."""
    levels = [in_tmp / "d"]
    for _ in range(1_499):
        levels.append(levels[-1] / "d")
    try:
        for directory in levels:
            directory.mkdir()  # one level at a time: os.makedirs recurses too
        (levels[-1] / "deep.py").write_text(STREAM)
        (in_tmp / "top.py").write_text(STREAM)
        status = main(["--no-cache", "."])
        lines = capsys.readouterr().out.splitlines()
        assert status == 1, lines
        found = sorted(line.split(":")[0].rsplit("/", 1)[-1] for line in lines)
        assert found == ["deep.py", "top.py"], lines
    finally:  # bottom up, one level at a time: pytest's rmtree of old temporary
        (levels[-1] / "deep.py").unlink(missing_ok=True)  # directories recurses, and a
        for directory in reversed(levels):  # tree this deep left there broke later runs
            if directory.exists():
                directory.rmdir()


def test_an_unlistable_directory_is_reported(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (in_tmp / "locked").mkdir()
    (in_tmp / "locked" / "m.py").write_text(STREAM)
    (in_tmp / "clean.py").write_text("x = 1\n")
    real = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if os.path.basename(os.fspath(path)) == "locked":
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    # (chmod 000 does not stop root, who runs some CI containers)
    monkeypatch.setattr(os, "scandir", scandir)
    status = main(["--no-cache", "."])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines == ["locked:1:1: XST000 cannot list directory: Permission denied"], lines


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges there")
def test_a_committed_cache_link_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A repository committing ``.extstream_cache -> ..`` made the tool write a
    ``.gitignore`` of ``*`` into the directory above it."""
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "pyproject.toml").write_text("[project]\nname = 'r'\n")
    (repository / "m.py").write_text(STREAM)
    (repository / ".extstream_cache").symlink_to("..")
    monkeypatch.chdir(repository)
    assert main(["."]) == 1
    assert "XST101" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repository"], "nothing written above"


@pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="the file system must take any bytes as a name"
)
def test_sarif_names_a_file_whose_name_is_not_utf8(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = os.fsdecode(b"bad\xff.py")
    (in_tmp / name).write_text(STREAM)
    assert main(["--no-cache", "--format", "sarif", "."]) == 1
    document = json.loads(capsys.readouterr().out)
    (result,) = document["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uri"] == "bad%FF.py"


def test_the_cache_tables_forget_deleted_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files created and deleted, run after run: the import table holds the live files
    only (it grew by 263 KB per 3,000 files created and deleted)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "m.py").write_text(STREAM)
    monkeypatch.chdir(tmp_path)
    sizes = []
    for generation in range(4):
        for old in tmp_path.glob("gen*.py"):
            old.unlink()
        for i in range(30):
            (tmp_path / f"gen{generation}_{i}.py").write_text("import torch\nx = 1\n")
        main(["."])
        capsys.readouterr()
        table = sources_module.SourceFacts(persist=True)._read_table(str(tmp_path))
        assert table, "the run keeps an import table"
        sizes.append(len(table))
        assert all(os.path.exists(path) for path in table), sorted(table)
    assert sizes[-1] == sizes[0] <= 31, sizes
