"""The on-disk project index: exact invalidation, robustness, concurrency, equivalence.

The cache is an optimisation: with it, without it, cold or warm, after any sequence of
edits, the findings must be exactly those of a fresh analysis.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.cache import CACHE_DIR, DiskCache
from extstream_lint.analysis.driver.index import ProjectIndex

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "proj"

_EXTERNAL = "def make_ext(ptr):\n    return ExternalStream(ptr)\n"
_MANAGED = "def make_ext(ptr):\n    return torch.npu.Stream()\n"


def _copy(target: Path) -> Path:
    shutil.copytree(FIXTURE, target)
    (target / "pyproject.toml").write_text("[project]\nname = 'proj'\n", encoding="utf-8")
    return target


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _copy(tmp_path / "proj")


def _findings(root: Path, index: ProjectIndex) -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for f in analyze_source(source, str(path), project=index):
            found.add((path.relative_to(root).as_posix(), f.line, f.message))
    return found


def _edit(path: Path, old: str, new: str, tick: int) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    # mtime granularity must not hide an edit: move it explicitly.
    stamp = os.stat(path).st_mtime_ns + tick * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def _lines(found: set[tuple[str, int, str]], name: str) -> set[int]:
    return {line for path, line, _ in found if path == name}


def test_entries_are_written_with_a_gitignore(project: Path) -> None:
    cache = DiskCache()
    _findings(project, ProjectIndex(cache=cache))
    assert cache.writes >= 4
    assert (project / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*"
    warm = DiskCache()
    index = ProjectIndex(cache=warm)
    _findings(project, index)
    assert warm.hits >= 4 and warm.writes == 0
    assert index.analysed == []  # every summary came from the cache


def test_invalidation_both_ways(project: Path) -> None:
    streams = project / "pkg" / "streams.py"
    before = _findings(project, ProjectIndex(cache=DiskCache()))
    assert 10 in _lines(before, "app.py")  # ext.synchronize() on make_ext(p)
    _edit(streams, _EXTERNAL, _MANAGED, 1)
    after = _findings(project, ProjectIndex(cache=DiskCache()))
    assert 10 not in _lines(after, "app.py")
    assert 15 in _lines(after, "app.py")  # st.DEFAULT is still external
    _edit(streams, _MANAGED, _EXTERNAL, 2)
    assert _findings(project, ProjectIndex(cache=DiskCache())) == before


def test_an_edit_three_imports_down_invalidates_the_importers(project: Path) -> None:
    # chain.py -> relay -> mid -> low: relay's cached summary holds low's sink, so an edit
    # of low must invalidate relay although relay's direct import (mid) did not change.
    low = project / "pkg" / "sub" / "low.py"
    before = _findings(project, ProjectIndex(cache=DiskCache()))
    assert 7 in _lines(before, "chain.py")
    _edit(low, "s.synchronize()", "return s", 1)
    after = _findings(project, ProjectIndex(cache=DiskCache()))
    assert 7 not in _lines(after, "chain.py")
    assert after == _findings(project, ProjectIndex())
    _edit(low, "return s", "s.synchronize()", 2)
    assert _findings(project, ProjectIndex(cache=DiskCache())) == before


def test_in_memory_index_follows_edits_too(project: Path) -> None:
    index = ProjectIndex(cache=DiskCache())
    before = _findings(project, index)
    _edit(project / "pkg" / "streams.py", _EXTERNAL, _MANAGED, 1)
    assert 10 not in _lines(_findings(project, index), "app.py")
    _edit(project / "pkg" / "streams.py", _MANAGED, _EXTERNAL, 2)
    assert _findings(project, index) == before


def test_corrupt_entries_are_rebuilt(project: Path) -> None:
    expected = _findings(project, ProjectIndex())
    _findings(project, ProjectIndex(cache=DiskCache()))
    entries = list((project / CACHE_DIR).rglob("*.pickle"))
    assert entries
    for number, entry in enumerate(entries):
        entry.write_bytes(b"" if number % 2 else b"\x80\x05garbage")
    cache = DiskCache()
    assert _findings(project, ProjectIndex(cache=cache)) == expected
    assert cache.hits == 0 and cache.writes >= len(entries)


def test_unwritable_cache_is_bypassed(project: Path) -> None:
    expected = _findings(project, ProjectIndex())
    (project / CACHE_DIR).write_text("not a directory")  # root ignores chmod; this cannot
    cache = DiskCache()
    assert _findings(project, ProjectIndex(cache=cache)) == expected
    assert cache.writes == 0


def _cli(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "extstream_lint", "--isolated", *args, "."],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_at_once_and_no_cache_flag(project: Path) -> None:
    runs = [_cli(project, "-j", "2"), _cli(project, "-j", "1")]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [1, 1], outputs
    assert outputs[0][0] == outputs[1][0]
    assert "XST000" not in outputs[0][0]
    warm = _cli(project, "-j", "2").communicate(timeout=120)[0]
    assert warm == outputs[0][0]
    assert DiskCache().load(str(project / "pkg" / "streams.py")) is not None  # whole entries
    shutil.rmtree(project / CACHE_DIR)
    uncached = _cli(project, "--no-cache").communicate(timeout=120)[0]
    assert uncached == outputs[0][0]
    assert not (project / CACHE_DIR).exists()


_VARIANTS = {
    "external": _EXTERNAL,
    "managed": _MANAGED,
    "maybe": "def make_ext(ptr):\n    return ExternalStream(ptr) if ptr else torch.npu.Stream()\n",
}


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.sampled_from(sorted(_VARIANTS)), min_size=1, max_size=4))
def test_cached_and_uncached_agree_after_any_edits(tmp_path: Path, edits: list[str]) -> None:
    root = tmp_path / f"p{len(list(tmp_path.iterdir()))}"
    _copy(root)
    streams = root / "pkg" / "streams.py"
    current = _EXTERNAL
    memory = ProjectIndex(cache=DiskCache())  # one long-lived process (an editor)
    for tick, name in enumerate(edits, 1):
        _edit(streams, current, _VARIANTS[name], tick)
        current = _VARIANTS[name]
        fresh = _findings(root, ProjectIndex())
        assert _findings(root, ProjectIndex(cache=DiskCache())) == fresh
        assert _findings(root, memory) == fresh


def test_configured_src_roots_and_cache_false(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE / "pkg", root / "src" / "pkg")
    (root / "scripts").mkdir()
    shutil.copy(FIXTURE / "app.py", root / "scripts" / "app.py")
    (root / "pyproject.toml").write_text(
        '[tool.extstream-lint]\nsrc = ["src"]\ncache = false\n', encoding="utf-8"
    )
    cli = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "scripts/app.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=XST", "scripts/app.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line.split(" ", 2)[:2] for line in cli.stdout.splitlines()]
    assert len(lines) == 6 and ["scripts/app.py:10:5:", "XST101"] in lines, cli
    assert cli.stdout == flake8.stdout
    assert not (root / CACHE_DIR).exists()


def test_a_registration_of_another_module_holds_when_revived(tmp_path: Path) -> None:
    """``handlers`` registers on ``jobs.finish`` for ``jobs.CommJob``: revived from the
    cache, its summary must name ``jobs``'s class, not a copy of it, or an edited
    importer's call (linted again, with the kept summaries) dispatches to the base."""
    case = Path(__file__).resolve().parents[1] / "conformance" / "fixtures" / "library_flow"
    root = tmp_path / "case"
    shutil.copytree(case / "singledispatch_modules", root)
    (root / "pyproject.toml").write_text("[project]\nname = 'case'\n", encoding="utf-8")
    before = _findings(root, ProjectIndex(cache=DiskCache()))
    assert _lines(before, "main.py") == {9}
    _edit(root / "main.py", "def negative(h):", "def negative(h):  # edited", 1)
    assert _lines(_findings(root, ProjectIndex(cache=DiskCache())), "main.py") == {9}
    _edit(root / "handlers.py", "import CommJob,", "import LogJob,", 2)
    _edit(root / "handlers.py", "job: CommJob", "job: LogJob", 2)  # the other class now
    assert _lines(_findings(root, ProjectIndex(cache=DiskCache())), "main.py") == {14}
    assert _findings(root, ProjectIndex(cache=DiskCache())) == _findings(root, ProjectIndex())
