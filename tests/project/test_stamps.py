"""Stamps an edit cannot keep (issue 32): size, mtime, ctime and inode, and git's
"racily clean" rule for a file stamped in the same clock tick as an edit.

``cp -p``, ``rsync -t``, ``tar x`` and CI caches put an edited file back at its old size
and mtime; nothing but the system clock sets its ctime, and a new file has a new inode.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.project import modules, sealing

_FILES = {
    "pyproject.toml": "[project]\nname = 'stamps'\n",
    "pkg/__init__.py": "",
    "pkg/adapter.py": (
        "from torch_npu.npu import ExternalStream\n\n\ndef make(p):\n    return ExternalStream(p)\n"
    ),
    "pkg/helper.py": "def drain(s):\n    s.synchronize()\n",
    "pkg/user.py": (
        "from pkg.adapter import make\nfrom pkg.helper import drain\n\n\n"
        "def run(p):\n    drain(make(p))\n"
    ),
}
_OLD = 1_600_000_000 * 1_000_000_000  # long ago: not racily clean


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(sealing.ENV, str(tmp_path / "key"))
    root = tmp_path / "proj"
    for name, text in _FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, ns=(_OLD, _OLD))
    return root


def _cli(root: Path, *extra: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", "-j", "1", *extra, "pkg"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _flake8(root: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=XST", "pkg/user.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def _same_stamp_edit(path: Path, old: str, new: str) -> None:
    """Rewrite ``path`` with the same size and put its atime and mtime back."""
    assert len(old) == len(new)
    info = os.stat(path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (info.st_size, info.st_mtime_ns)


@pytest.mark.parametrize("frontend", [_cli, _flake8], ids=["cli", "flake8"])
def test_an_edit_that_keeps_size_and_mtime_is_seen(project: Path, frontend) -> None:
    helper = project / "pkg" / "helper.py"
    found = frontend(project)
    assert "XST101" in found
    assert frontend(project) == found  # warm
    # the text still spells a refused call (the pre-filter's facts would say the same):
    # only the summary, kept with the stamp, tells the edit apart
    _same_stamp_edit(helper, "def drain(s)", "def drain(t)")
    assert "XST101" not in frontend(project)  # the finding goes with the edit
    _same_stamp_edit(helper, "def drain(t)", "def drain(s)")
    assert frontend(project) == found  # and comes back with the next
    assert _cli(project, "--no-cache") == _cli(project)


def test_a_file_replaced_by_a_copy_with_its_stamp_is_seen(project: Path) -> None:
    """``cp -p`` / ``tar x`` over a file: a new inode (and ctime), the same size and mtime."""
    helper = project / "pkg" / "helper.py"
    assert "XST101" in _cli(project)
    copy = project / "helper.new"
    copy.write_text("def drain(t):\n    s.synchronize()\n", encoding="utf-8")
    os.utime(copy, ns=(_OLD, _OLD))
    os.replace(copy, helper)
    assert "XST101" not in _cli(project)


def test_a_racily_clean_stamp_carries_the_bytes_digest(tmp_path: Path) -> None:
    """A file modified within a tick of the run that stamps it: the stamp alone would
    hold after an edit in that tick, so the digest of the bytes read is kept and compared."""
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    with modules.one_run():
        stamp = modules.stamp_of(str(path))
        assert modules.racy(stamp)  # written just now
        kept = modules.kept_stamp(stamp, b"x = 1\n")
        assert len(kept) == 5
        assert modules.stamp_holds(str(path), kept)
        # the same stat data, other bytes read: an edit in the same tick
        assert not modules.stamp_holds(str(path), modules.kept_stamp(stamp, b"x = 2\n"))
        # bytes not at hand: a stamp that never holds (read again next time)
        assert not modules.stamp_holds(str(path), modules.kept_stamp(stamp, None))
    os.utime(path, ns=(_OLD, _OLD))
    with modules.one_run():
        stamp = modules.stamp_of(str(path))
        assert not modules.racy(stamp)  # old enough: the stat data suffice
        assert modules.kept_stamp(stamp, None) == stamp and len(stamp) == 4
        assert modules.stamp_holds(str(path), stamp)


def test_a_whole_second_mtime_is_racy_for_two_seconds(tmp_path: Path) -> None:
    """File systems that keep whole seconds (FAT keeps two) widen the window."""
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    with modules.one_run():
        now = modules.current_run().started  # type: ignore[union-attr]
        whole = (now // 10**9 - 1) * 10**9  # a whole second, up to two seconds ago
        assert modules.racy((6, whole, whole, 1))
        assert not modules.racy((6, whole - 3 * 10**9, whole, 1))
        assert modules.racy((6, now - 10**6, now, 1))  # a millisecond before the run
        assert not modules.racy((6, now - 10**9 - 1, now, 1))  # a second before
