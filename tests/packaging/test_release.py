"""Release packaging, as a publisher and a new user meet it: build, check, install, run.

``python -m build`` must make an sdist and a wheel whose metadata passes ``twine check
--strict`` (what PyPI would reject, caught before an upload), carrying the entry points every
way in depends on. The quick test builds without isolation from the running environment (a
few seconds, no network); the slow one installs the wheel in a fresh virtual environment,
with its dependencies from the package index, and runs the command and the flake8 plugin
there, as a user of the released file would.
"""

from __future__ import annotations

import configparser
import email.parser
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from extstream_lint import __version__

REPO = Path(__file__).resolve().parents[2]
#: One worker builds: setuptools stages the sdist in the checkout itself (``extstream-<v>/``,
#: ``*.egg-info``), so two workers building at once remove each other's staging tree (seen
#: in a fresh clone: "No such file or directory: 'extstream-0.1.0/tests/...'").
pytestmark = pytest.mark.xdist_group("release-build")
MISUSE = "import torch\n\next = torch.npu.ExternalStream(handle)\next.synchronize()\n"


def _run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=900
    )


def build(outdir: Path, *, isolated: bool) -> tuple[Path, Path]:
    """``python -m build`` of this checkout into ``outdir``: (sdist, wheel)."""
    flags = [] if isolated else ["--no-isolation"]
    done = _run(sys.executable, "-m", "build", *flags, "--outdir", outdir, REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    (sdist,) = outdir.glob("*.tar.gz")
    (wheel,) = outdir.glob("*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build(tmp_path_factory.mktemp("dist"), isolated=False)


def test_build_makes_an_sdist_and_a_wheel_that_twine_accepts(
    artifacts: tuple[Path, Path],
) -> None:
    sdist, wheel = artifacts
    assert sdist.name == f"extstream-{__version__}.tar.gz"
    assert wheel.name == f"extstream-{__version__}-py3-none-any.whl"
    done = _run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2, done.stdout


def test_wheel_metadata_and_entry_points(artifacts: tuple[Path, Path]) -> None:
    _, wheel = artifacts
    info = f"extstream-{__version__}.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        entry_points = configparser.ConfigParser()
        entry_points.optionxform = str  # type: ignore[assignment,method-assign]  # keep case
        entry_points.read_string(archive.read(f"{info}/entry_points.txt").decode())
    assert metadata["Version"] == __version__
    assert metadata["License-Expression"] == "MIT"
    assert f"{info}/licenses/LICENSE" in names
    assert metadata["Description-Content-Type"] == "text/markdown"  # the README, rendered
    assert {name.split("/")[0] for name in names} == {"extstream_lint", "extstream_guard", info}
    assert dict(entry_points["console_scripts"]) == {
        "extstream-lint": "extstream_lint.frontends.cli:main"
    }
    assert dict(entry_points["flake8.extension"]) == {
        "XST": "extstream_lint.frontends.flake8_plugin:ExtStreamChecker"
    }
    assert dict(entry_points["pytest11"]) == {"extstream_guard": "extstream_guard.pytest_plugin"}


def test_sdist_carries_what_a_release_review_needs(artifacts: tuple[Path, Path]) -> None:
    sdist, _ = artifacts
    root = f"extstream-{__version__}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
    for needed in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        "docs/rules.md",
        "docs/architecture.md",
        "docs/guard.md",
        "CONTRIBUTING.md",
        ".pre-commit-hooks.yaml",
        "examples/interop.py",
        "tests/cli/test_cli_main.py",
    ):
        assert f"{root}/{needed}" in names, needed
    assert not [name for name in names if name.endswith(".pyc")]


def test_changelog_has_an_entry_for_this_version() -> None:
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## [{__version__}]" in changelog, "each release gets its CHANGELOG section"


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv_and_runs(tmp_path: Path) -> None:
    """The released file on its own: its dependencies come from the index, not from here."""
    _, wheel = build(tmp_path / "dist", isolated=True)
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    done = _run(python, "-m", "pip", "install", "--quiet", wheel)
    assert done.returncode == 0, done.stdout + done.stderr

    version = _run(env / "bin" / "extstream-lint", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith(f"extstream-lint {__version__} (libcst "), version.stdout

    (tmp_path / "bad.py").write_text(MISUSE)
    lint = _run(env / "bin" / "extstream-lint", "bad.py", cwd=tmp_path)
    assert lint.returncode == 1, lint.stdout + lint.stderr
    assert lint.stdout.startswith("bad.py:4:1: XST101 "), lint.stdout

    flake8 = _run(python, "-m", "flake8", "--isolated", "--select=XST", "bad.py", cwd=tmp_path)
    assert flake8.returncode == 1, flake8.stdout + flake8.stderr
    assert flake8.stdout.startswith("bad.py:4:1: XST101 "), flake8.stdout

    guard = _run(python, "-c", "import extstream_guard; print(extstream_guard.is_external)")
    assert guard.returncode == 0, guard.stderr
