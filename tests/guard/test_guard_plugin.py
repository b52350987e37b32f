"""The pytest plugin, run in child pytest sessions over the simulated torch_npu (slow)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from tests import _npu_wheel
from tests.guard import npusim

npusim.activate(npusim.build(_npu_wheel.python_tree("2.13.0"), "2.13.0"))
"""

TEST = """
import pytest
import torch_npu


def test_external_synchronize():
    ext = torch_npu.npu.ExternalStream(0x1234)
    ext.synchronize()
"""


def _run(
    tmp_path: Path, *args: str, sim: bool = True, **env: str
) -> subprocess.CompletedProcess[str]:
    if sim:
        (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    (tmp_path / "test_child.py").write_text(textwrap.dedent(TEST))
    clean = {k: v for k, v in os.environ.items() if k != "EXTSTREAM_GUARD"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", *args],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, env={**clean, **env},
    )  # fmt: skip


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def _wheel(sim_build: Any) -> None:
    """Download / extract the wheel once here, so children only read the cache."""


def test_option_raise(tmp_path: Path) -> None:
    result = _run(tmp_path, "--extstream-guard=raise")
    assert "ExternalStreamError" in result.stdout and "[XST101]" in result.stdout


def test_env_var_warn(tmp_path: Path) -> None:
    warning = "extstream_guard.ExternalStreamWarning"
    result = _run(tmp_path, "-W", f"error::{warning}", EXTSTREAM_GUARD="warn")
    assert "ExternalStreamWarning" in result.stdout, result.stdout


def test_default_is_off(tmp_path: Path) -> None:
    result = _run(tmp_path)
    assert "NPUStream::synchronize" in result.stdout
    assert "ExternalStreamError" not in result.stdout and "[XST101]" not in result.stdout


def test_ini_option(tmp_path: Path) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\nextstream_guard = raise\n")
    result = _run(tmp_path)
    assert "[XST101]" in result.stdout


def test_without_torch_npu_is_a_usage_error(tmp_path: Path) -> None:
    result = _run(tmp_path, "--extstream-guard=raise", sim=False)
    assert result.returncode == 4  # pytest.ExitCode.USAGE_ERROR
    assert "extstream_guard needs torch_npu" in result.stderr
