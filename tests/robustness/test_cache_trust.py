"""A cache that cannot lie (issue 32): damaged, planted, foreign and special entries.

``.extstream_cache/`` sits in the linted tree: anyone can flip its bits, plant files at
its predictable names, copy it from another machine or put a FIFO there. Every such entry
must be a miss (the answer of ``--no-cache``), never an error, a finding, a hang or a
memory bomb. Each test runs the CLI in a child process, as a user or CI would.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.project import diskio, sealing
from extstream_lint.project.diskio import CACHE_DIR

_FILES = {
    "pyproject.toml": "[project]\nname = 'trust'\n",
    "pkg/__init__.py": "",
    "pkg/adapter.py": (
        "from torch_npu.npu import ExternalStream\n\n\ndef make(p):\n    return ExternalStream(p)\n"
    ),
    # an import cycle: a's helper drains what b hands it
    "pkg/a.py": "import pkg.b\n\n\ndef drain(s):\n    s.synchronize()\n",
    "pkg/b.py": (
        "import pkg.a\nfrom pkg.adapter import make\n\n\n"
        "def go(p):\n    pkg.a.drain(make(p))\n    return make(p)\n"
    ),
    "pkg/user.py": (
        "from pkg.b import go\nfrom pkg.a import drain\n\n\n"
        "def run(p):\n    go(p).query()\n    drain(go(p))\n"
    ),
    "pkg/plain.py": "import torch\n\n\ndef run():\n    torch.npu.Stream().synchronize()\n",
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        old = os.stat(path).st_mtime_ns - 60 * 1_000_000_000  # not racily clean
        os.utime(path, ns=(old, old))


@pytest.fixture
def key_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "key"
    monkeypatch.setenv(sealing.ENV, str(directory))
    return directory


@pytest.fixture
def project(tmp_path: Path, key_dir: Path) -> Path:
    root = tmp_path / "proj"
    _write(root, _FILES)
    return root


def lint(root: Path, *extra: str, timeout: float = 120, **kwargs) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", "-j", "1", *extra, "pkg"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout


def _entries(root: Path) -> list[Path]:
    return sorted(p for p in (root / CACHE_DIR).rglob("*.pickle"))


def test_the_fixture_has_findings_across_the_cycle(project: Path) -> None:
    code, out = lint(project, "--no-cache")
    assert code == 1 and "XST101" in out and "XST102" in out
    assert "plain.py" not in out  # an ordinary NPU stream: no finding
    assert lint(project) == (code, out)  # cold
    assert len(_entries(project)) >= 6
    assert lint(project) == (code, out)  # warm


#: Damage by seed: each seed truncates, extends or flips a bit of every entry, chosen at random
#: per entry. The default run takes the first three seeds (every kind of damage among them,
#: checked), the full sweep of twelve is marked ``slow``: each seed is two CLI processes.
_SEEDS = [
    pytest.param(range(3), id="seeds-0-2"),
    pytest.param(range(3, 12), id="seeds-3-11", marks=pytest.mark.slow),
]


def _damage(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    damaged = bytearray(data)
    how = rng.randrange(4)
    if how == 0:
        return bytes(damaged[: rng.randrange(len(damaged))]), "truncated"
    if how == 1:
        return bytes(damaged + bytes([rng.randrange(256)])), "extended"
    bit = rng.randrange(len(damaged) * 8)
    damaged[bit // 8] ^= 1 << (bit % 8)
    return bytes(damaged), "flipped"


@pytest.mark.parametrize("seeds", _SEEDS)
def test_fuzzed_entries_change_nothing(project: Path, seeds: range) -> None:
    """Seeds each flipping one random bit in every entry (or truncating it, or appending to
    it): every run answers exactly as ``--no-cache``, and the damage does not persist (the
    next run too)."""
    expected = lint(project, "--no-cache")
    lint(project)
    pristine = {path: path.read_bytes() for path in _entries(project)}
    assert pristine
    kinds = set()
    for seed in seeds:
        rng = random.Random(seed)
        for path, data in pristine.items():
            damaged, how = _damage(data, rng)
            kinds.add(how)
            path.write_bytes(damaged)
        assert lint(project) == expected, f"seed {seed}"
        assert lint(project) == expected, f"seed {seed}, the run after"
    assert kinds == {"truncated", "extended", "flipped"}, kinds


def test_a_planted_findings_entry_is_refused(project: Path, tmp_path: Path) -> None:
    """An entry edited by hand to say "no findings" (well formed, restricted classes only)
    and put in place of the real one is a miss: without this user's key it has no tag."""
    from extstream_lint.analysis.driver.cache import DiskCache
    from extstream_lint.analysis.driver.digests import FINDINGS_KEY

    expected = lint(project, "--no-cache")
    lint(project)
    user = str(project / "pkg" / "user.py")
    location = DiskCache()._location(user, FINDINGS_KEY)
    kept = diskio.load(location)
    assert kept.findings  # type: ignore[attr-defined]
    kept.findings = []  # type: ignore[attr-defined]
    import pickle

    payload = pickle.dumps(kept)
    # planted by someone else: sealed with another key, or not sealed at all
    other = tmp_path / "other-key"
    for data in (payload, _sealed_with(other, diskio._name(location), payload)):
        Path(location).write_bytes(data)
        assert lint(project) == expected
    # an entry sealed for another name (another file's) is refused at this one
    elsewhere = DiskCache()._location(str(project / "pkg" / "b.py"), FINDINGS_KEY)
    shutil.copyfile(elsewhere, location)
    assert lint(project) == expected


def _sealed_with(key_dir: Path, name: str, payload: bytes) -> bytes:
    code = (
        "import sys\nfrom extstream_lint.project import sealing\n"
        "sys.stdout.buffer.write(sealing.seal(sys.argv[1], sys.stdin.buffer.read()))\n"
    )
    env = {**os.environ, sealing.ENV: str(key_dir)}
    done = subprocess.run(
        [sys.executable, "-c", code, name], input=payload, capture_output=True, env=env
    )
    assert done.returncode == 0
    assert sealing.unseal  # the same module, another key
    return done.stdout


#: ``None`` then a pickle ``LONG_BINPUT`` with index 2**25: the C unpickler grows its memo
#: to twice that many slots and clears them (512 MB touched) before it finds the pickle is
#: nothing; a larger index asks for tens of gigabytes.
_BOMB = b"\x80\x04Nr\x00\x00\x00\x02."
#: Runs the CLI in-process and reports its peak resident size (kB on Linux).
_PEAK = (
    "import resource, sys\nfrom extstream_lint.frontends.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stderr.write(f'PEAK {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\n"
    "sys.exit(code)\n"
)


def _peak_kb(stderr: str) -> int:
    return int(next(line for line in stderr.splitlines() if line.startswith("PEAK")).split()[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in kB: Linux")
def test_a_memo_bomb_allocates_nothing(project: Path) -> None:
    """The bomb planted at every entry's name: the run answers as ``--no-cache`` and its
    peak memory stays that of a run that reads no entry (a cold one, every entry a miss),
    far below what unpickling one bomb takes (over 500 MB: the twin below)."""
    import resource

    expected = lint(project, "--no-cache")
    cold = subprocess.run(
        [sys.executable, "-c", _PEAK, "--isolated", "-j", "1", "pkg"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (cold.returncode, cold.stdout) == expected, cold.stderr
    for path in _entries(project):
        path.write_bytes(_BOMB)
    limit = 1 << 31

    def cap() -> None:  # should the bomb be unpickled after all, fail rather than swap
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-c", _PEAK, "--isolated", "-j", "1", "pkg"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
    )
    assert (done.returncode, done.stdout) == expected, done.stderr
    assert _peak_kb(done.stderr) < _peak_kb(cold.stderr) + 100_000


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in kB: Linux")
def test_the_bomb_is_a_bomb_without_the_seal() -> None:
    """The twin: the same bytes handed to the unpickler directly take over 500 MB."""
    code = (
        "import resource, sys\nfrom extstream_lint.project import safe_pickle\n"
        f"print(safe_pickle.loads({_BOMB!r}))\n"
        "sys.stderr.write(f'PEAK {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "None", done.stderr
    assert _peak_kb(done.stderr) > 500_000


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_place_of_an_entry_is_a_miss(project: Path) -> None:
    expected = lint(project, "--no-cache")
    lint(project)
    for path in _entries(project):
        path.unlink()
        os.mkfifo(path)  # opening it for reading would wait for a writer forever
    assert lint(project, timeout=60) == expected


def test_an_oversized_entry_is_not_read(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lint(project)
    (location,) = [p for p in _entries(project) if p.name.startswith("imports-")] or [None]
    assert location is not None
    assert isinstance(diskio.load(str(location)), dict)
    monkeypatch.setattr(diskio, "MAX_ENTRY_BYTES", location.stat().st_size - 1)
    with pytest.raises(OSError, match="larger than"):
        diskio.load(str(location))


def test_without_a_place_for_the_key_no_cache_is_read_or_written(
    project: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a directory", encoding="utf-8")
    env = {**os.environ, sealing.ENV: str(blocked / "key")}
    expected = lint(project, "--no-cache")
    assert lint(project, env=env) == expected
    assert not _entries(project)
    # and a key others may read is no secret: refused too
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "cache-key").write_bytes(os.urandom(32))
    os.chmod(shared / "cache-key", 0o644)
    assert lint(project, env={**os.environ, sealing.ENV: str(shared)}) == expected
    assert not _entries(project)


def test_the_key_is_private_and_made_once(key_dir: Path) -> None:
    sealing._KEYS.clear()
    first = sealing.key()
    assert first is not None and len(first) == 32
    info = os.stat(key_dir / "cache-key")
    assert info.st_mode & 0o777 == 0o600
    sealing._KEYS.clear()
    assert sealing.key() == first
    assert sealing.unseal("x/y", sealing.seal("x/y", b"data")) == b"data"
    with pytest.raises(sealing.ForeignEntry):
        sealing.unseal("x/z", sealing.seal("x/y", b"data"))
