"""SARIF and ``github`` paths are relative to the repository root (code scanning's base),
whatever the working directory; text and JSON keep flake8's paths relative to the cwd."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urljoin

import pytest

from extstream_lint.frontends.cli import main
from tests.cli.test_cli_formats import _sarif_schema_errors

SYNC = "import torch\n\next = torch.npu.ExternalStream(h)\next.synchronize()\n"


def _repo(root: Path, marker: str) -> Path:
    if marker == ".git":
        (root / ".git").mkdir()
    elif marker == ".git file":  # a worktree or submodule
        (root / ".git").write_text("gitdir: /elsewhere\n")
    else:
        (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    sub = root / "pkg" / "my dir"
    sub.mkdir(parents=True)
    (sub / "sync.py").write_text(SYNC)
    return sub


@pytest.mark.parametrize("marker", [".git", ".git file", "pyproject.toml"])
def test_sarif_from_a_subdirectory_resolves_to_the_real_file(
    tmp_path: Path, marker: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = _repo(tmp_path, marker)
    monkeypatch.chdir(sub)
    assert main(["--no-cache", "--format", "sarif", "sync.py"]) == 1
    document = json.loads(capsys.readouterr().out)
    run = document["runs"][0]
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": "pkg/my%20dir/sync.py", "uriBaseId": "%SRCROOT%"}
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == tmp_path.as_uri() + "/"
    resolved = unquote(urljoin(base, location["uri"]))
    assert resolved == (sub / "sync.py").as_uri().replace("%20", " ")
    assert Path(resolved.removeprefix("file://")).read_text() == SYNC
    assert _sarif_schema_errors(document) == []


def test_github_from_a_subdirectory_names_the_file_from_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = _repo(tmp_path, ".git")
    monkeypatch.chdir(sub)
    assert main(["--no-cache", "--format", "github", "sync.py"]) == 1
    assert capsys.readouterr().out.startswith("::error file=pkg/my dir/sync.py,line=4,col=1,")


def test_the_same_from_outside_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _repo(repo, ".git")
    monkeypatch.chdir(tmp_path)
    assert main(["--no-cache", "--format", "github", "repo/pkg"]) == 1
    assert capsys.readouterr().out.startswith("::error file=pkg/my dir/sync.py,line=4,")
    assert main(["--no-cache", "--format", "sarif", "repo/pkg"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.as_uri() + "/"


def test_text_and_json_keep_paths_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = _repo(tmp_path, ".git")
    monkeypatch.chdir(sub)
    assert main(["--no-cache", "sync.py"]) == 1
    assert capsys.readouterr().out.startswith("sync.py:4:1: XST101")
    assert main(["--no-cache", "--format", "json", "sync.py"]) == 1
    assert json.loads(capsys.readouterr().out)["findings"][0]["filename"] == "sync.py"
