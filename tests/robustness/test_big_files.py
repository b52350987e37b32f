"""A bound on one file's analysis cost (issue 32): a file over ``max-file-size`` is not
parsed (libcst's parse takes about 500 times its size: a 4 MB file peaked over 2 GB); it
gets one XST000 that names the limit, and the run goes on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.frontends.config import ConfigError, load_config
from extstream_lint.project import limits, sealing

_HEAD = "import torch_npu\n\n\ndef f(p):\n    torch_npu.npu.ExternalStream(p).synchronize()\n\n\n"


def _big(size: int) -> str:
    """A module of about ``size`` bytes that mentions an external stream (so it is parsed)."""
    line = "x_{0} = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]\n"
    body = "".join(line.format(n) for n in range(size // len(line.format(0)) + 1))
    return _HEAD + body


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(sealing.ENV, str(tmp_path / "key"))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'big'\n", encoding="utf-8")
    (tmp_path / "big.py").write_text(_big(4_000_000), encoding="utf-8")
    (tmp_path / "small.py").write_text(_HEAD, encoding="utf-8")
    return tmp_path


@pytest.mark.skipif(sys.platform == "win32", reason="resource limits are POSIX")
def test_a_4mb_file_is_one_xst000_within_a_memory_limit(project: Path) -> None:
    """Under a 1 GB address-space limit (the parse alone would take about 2 GB)."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", "-j", "1", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
    )
    lines = done.stdout.splitlines()
    big = [line for line in lines if line.startswith("big.py")]
    assert len(big) == 1 and "XST000" in big[0], done.stdout + done.stderr
    assert "over the limit of 2,000,000 bytes" in big[0] and "max-file-size" in big[0]
    assert any(line.startswith("small.py:5:5: XST101") for line in lines)  # the run went on


def test_the_limit_is_configurable_both_ways(project: Path) -> None:
    """Raised, the same file is analysed (its finding, no XST000); lowered, the small one
    is refused. Through the flag and through ``[tool.extstream-lint]``."""
    small = (project / "small.py").stat().st_size
    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", f"--max-file-size={small - 1}", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "XST000" in done.stdout and f"limit of {small - 1:,} bytes" in done.stdout
    (project / "pyproject.toml").write_text(
        f"[tool.extstream-lint]\nmax-file-size = {small}\n", encoding="utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "small.py"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "XST101" in done.stdout and "XST000" not in done.stdout


def test_the_bound_applies_to_the_api_and_to_imports(tmp_path: Path) -> None:
    text = _HEAD + "y = 1\n" * 10
    try:
        limits.set_max_file_bytes(len(text))
        assert [f.code for f in analyze_source(text, "m.py")] == ["XST101"]
        limits.set_max_file_bytes(len(text) - 1)
        (finding,) = analyze_source(text, "m.py")
        assert finding.code == "XST000" and "limit" in finding.message
        # a multi-byte text is measured in UTF-8 bytes
        wide = _HEAD + "# " + "\u00e9" * 20 + "\n"
        limits.set_max_file_bytes(len(wide) + 5)
        assert limits.over_limit(wide) is not None
        limits.set_max_file_bytes(len(wide.encode()))
        assert limits.over_limit(wide) is None
    finally:
        limits.set_max_file_bytes(limits.DEFAULT_MAX_FILE_BYTES)


@pytest.mark.parametrize("bad", ["0", "-1", "true", "'2MB'", "1.5"])
def test_a_bad_limit_is_a_configuration_error(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.extstream-lint]\nmax-file-size = {bad}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="max-file-size must be a positive number of bytes"):
        load_config(str(path))
    assert os.path.exists(path)
