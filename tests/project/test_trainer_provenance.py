"""XST203 on a small realistic training project, measured as recall and precision.

``fixtures/trainer`` is written like the projects XST203 is measured on outside this
repository (issue 28): a model returning an output object, losses in their own module, a
trainer class with an AMP scaler and gradient accumulation, backward helpers in a utilities
module, the external stream adopted in another module. Inline ``# XST203`` comments state
the expected findings; each shape has a twin that must stay silent (the backward under the
same stream, a managed stream, a CUDA stream, an evaluation without backward). Recall and
precision of XST203, call sites required, must both be 1.0 through the CLI on the whole
project and through flake8 file by file (an editor's view), with and without the cache.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lint.test_cases import expectations

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "trainer"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A project root holding the ``trainer`` package (imported as ``trainer.*``)."""
    shutil.copytree(FIXTURE, tmp_path / "trainer")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'trainer'\n", encoding="utf-8")
    return tmp_path


def _expected(root: Path) -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted((root / "trainer").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for line, code in expectations(path.read_text(encoding="utf-8")):
            found.add((relative, line, code))
    return found


def _findings(output: str) -> set[tuple[str, int, str]]:
    found = set()
    for line in output.splitlines():
        path, number, _, rest = line.split(":", 3)
        found.add((path.removeprefix("./"), int(number), rest.split()[0]))
    return found


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def _scores(
    actual: set[tuple[str, int, str]], expected: set[tuple[str, int, str]]
) -> tuple[float, float]:
    """Recall and precision of XST203 (every other code must be absent: checked apart)."""
    want = {item for item in expected if item[2] == "XST203"}
    got = {item for item in actual if item[2] == "XST203"}
    hits = len(want & got)
    return hits / len(want), (hits / len(got) if got else 0.0)


def test_the_fixture_states_each_shape() -> None:
    expected = _expected(FIXTURE.parent)
    assert {code for _, _, code in expected} == {"XST203"}
    assert len(expected) >= 5


def test_recall_and_precision_through_the_cli(workdir: Path) -> None:
    expected = _expected(workdir)
    cold = _findings(_run(["extstream_lint", "--isolated", "--select=XST2", "."], workdir))
    warm = _findings(_run(["extstream_lint", "--isolated", "--select=XST2", "."], workdir))
    fresh = _findings(
        _run(["extstream_lint", "--isolated", "--no-cache", "--select=XST2", "."], workdir)
    )
    assert cold == warm == fresh  # summaries with provenance survive the cache
    assert _scores(cold, expected) == (1.0, 1.0), sorted(cold ^ expected)
    assert cold == expected


def test_recall_and_precision_through_flake8_file_by_file(workdir: Path) -> None:
    expected = _expected(workdir)
    actual: set[tuple[str, int, str]] = set()
    for path in sorted((workdir / "trainer").glob("*.py")):
        relative = path.relative_to(workdir).as_posix()
        out = _run(["flake8", "--isolated", "--select=XST", relative], workdir)
        actual |= _findings(out)
    assert _scores(actual, expected) == (1.0, 1.0), sorted(actual ^ expected)
    assert actual == expected
