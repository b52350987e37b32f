"""Fetch torch-npu wheels into the repository's ``.cache/`` so tests can read them.

torch_npu cannot be imported without CANN, and must never be installed next to torch, so tests
that need its real Python files or its native library read them from the PyPI wheel instead.
The wheel is downloaded once with ``pip download`` (cached in ``.cache/torch-npu/``, which is
gitignored) and never installed.

Public API (kept small on purpose; other test suites import it):

* :func:`wheel` - the wheel file for a version, downloaded on first use.
* :func:`python_tree` - a directory holding the wheel's ``torch_npu/**/*.py`` files.
* :func:`read_member` - the bytes of one file inside the wheel.
* :class:`WheelUnavailable` - raised, with the pip output, when the download fails.
* :func:`offline` - true when ``EXTSTREAM_NPU_WHEEL_OFFLINE=1``: callers may then skip instead of
  failing. Without it a failed download must fail the test that needed the wheel.

Downloads are serialised with a file lock, so parallel pytest-xdist workers share one copy.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "CACHE_DIR",
    "CI_RELEASES",
    "DEFAULT_VERSION",
    "RELEASES",
    "WheelUnavailable",
    "offline",
    "python_tree",
    "read_member",
    "sim_version",
    "versions",
    "wheel",
]

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = REPO_ROOT / ".cache" / "torch-npu"
#: The release the contract was written from (and the one torch 2.13.0 pairs with).
DEFAULT_VERSION = "2.13.0"
#: Every published torch-npu release that ships ``torch_npu.npu.ExternalStream``, oldest first
#: (each read from its wheel; the wheels of 2.9.1 and 2.8.0.post5 lack the class, as does
#: 2.12.0.post2 per the contract's section 7.3). ``tests/guard/check_releases.py`` checks any.
RELEASES = (
    "2.7.1.post11", "2.9.0.post9", "2.10.0.post7", "2.11.0.post3", "2.12.0.post3", "2.13.0",
    "2.14.0",
)  # fmt: skip
#: What the default test run checks against the wheels: the oldest and the newest release.
CI_RELEASES = (RELEASES[0], RELEASES[-1])
#: The wheel tag to fetch: the contents we read are the same for every platform tag.
_PIP_TARGET = ("--python-version", "3.11", "--platform", "manylinux_2_28_x86_64")


class WheelUnavailable(RuntimeError):
    """The torch-npu wheel could not be downloaded (no network, or no such version)."""


def versions() -> tuple[str, ...]:
    """The releases the contract tests read: ``$EXTSTREAM_NPU_VERSIONS`` (comma-separated, or
    ``all``), else the oldest and the newest."""
    value = os.environ.get("EXTSTREAM_NPU_VERSIONS", "").strip()
    if not value:
        return CI_RELEASES
    if value == "all":
        return RELEASES
    return tuple(part.strip() for part in value.split(",") if part.strip())


def sim_version() -> str:
    """The release whose Python files the simulation runs: ``$EXTSTREAM_NPU_SIM_VERSION``, else
    :data:`DEFAULT_VERSION`."""
    return os.environ.get("EXTSTREAM_NPU_SIM_VERSION", "").strip() or DEFAULT_VERSION


def offline() -> bool:
    """Whether the user asked to skip, rather than fail, tests whose wheel cannot be fetched."""
    return os.environ.get("EXTSTREAM_NPU_WHEEL_OFFLINE", "") not in ("", "0")


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / ".lock", "a+b") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no xdist sharing worth locking for
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _find(directory: Path, version: str) -> Path | None:
    matches = sorted(directory.glob(f"torch_npu-{version}-*.whl"))
    return matches[0] if matches else None


def wheel(version: str = DEFAULT_VERSION) -> Path:
    """Return the cached wheel for ``version``, downloading it with pip the first time."""
    directory = CACHE_DIR / "wheels"
    found = _find(directory, version)
    if found is not None:
        return found
    with _locked():
        found = _find(directory, version)
        if found is not None:
            return found
        directory.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            *_PIP_TARGET, "--disable-pip-version-check", "--quiet",
            f"torch-npu=={version}", "-d", str(directory),
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, timeout=900)
        found = _find(directory, version)
        if result.returncode != 0 or found is None:
            raise WheelUnavailable(
                f"could not download torch-npu=={version} with `{' '.join(command)}` "
                f"(exit {result.returncode}):\n{result.stdout}{result.stderr}\n"
                "Set EXTSTREAM_NPU_WHEEL_OFFLINE=1 to skip the tests that need it."
            )
        return found


def python_tree(version: str = DEFAULT_VERSION) -> Path:
    """Return a directory whose ``torch_npu/`` holds every ``.py`` file of the wheel."""
    root = CACHE_DIR / version
    marker = root / ".complete"
    if marker.exists():
        return root
    path = wheel(version)
    with _locked():
        if not marker.exists():
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    if name.startswith("torch_npu/") and name.endswith(".py"):
                        archive.extract(name, root)
            marker.write_text(path.name)
    return root


def read_member(version: str, member: str) -> bytes:
    """Return the bytes of ``member`` (e.g. ``torch_npu/lib/libtorch_npu.so``) in the wheel."""
    with zipfile.ZipFile(wheel(version)) as archive:
        return archive.read(member)
