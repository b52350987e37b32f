"""Objects a class builds in ``__init__`` from another module's class (issue 16, section 3).

``fixtures/class_state`` spells ``ExternalStream`` only in ``serving/adapter.py``. A
connector's ``__init__`` takes its stream from the adapter; classes in other modules build
one in their own ``__init__`` and use it in methods. What the class builds is the class's
own state: a refused use of it is reported once, on the method's line, and a
``@contextmanager`` method making it current is followed. A holder given its connector by
its caller reports at the caller. Inline ``# XST1xx: col`` comments state the findings.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from tests.lint.test_cases import expectations

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "class_state"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy: runs may write caches next to it."""
    target = tmp_path / "class_state"
    shutil.copytree(FIXTURE, target)
    return target


def _expected(root: Path) -> dict[tuple[str, int, str], int | None]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for (line, code), want in expectations(path.read_text(encoding="utf-8")).items():
            found[(relative, line, code)] = want.column
    return found


def test_fixture_states_findings_in_every_role() -> None:
    files = {path for path, _, _ in _expected(FIXTURE)}
    assert files == {"serving/kv.py", "serving/engine.py", "serving/app.py"}


def test_file_by_file_with_columns(project: Path) -> None:
    index = ProjectIndex()
    actual = {}
    for path in sorted(project.rglob("*.py")):
        relative = path.relative_to(project).as_posix()
        for finding in analyze_source(path.read_text(encoding="utf-8"), str(path), project=index):
            actual[(relative, finding.line, finding.code)] = finding.col + 1
    expected = _expected(project)
    assert set(actual) == set(expected)
    for key, column in expected.items():
        assert column is None or actual[key] == column, key


def test_the_cli_on_the_directory_agrees(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", "--no-cache", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    found = set()
    for line in done.stdout.splitlines():
        path, number, _column, rest = line.split(":", 3)
        found.add((path.removeprefix("./"), int(number), rest.split()[0]))
    assert found == set(_expected(project))
