"""tests/_npu_wheel.py: a failed download is an error that says how to skip, never a silent skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import _npu_wheel
from tests.guard._wheels import wheel_tree


def test_unknown_version_raises_with_the_pip_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_npu_wheel, "CACHE_DIR", tmp_path)
    with pytest.raises(_npu_wheel.WheelUnavailable) as info:
        _npu_wheel.wheel("0.0.0.dev0")
    message = str(info.value)
    assert "torch-npu==0.0.0.dev0" in message and "EXTSTREAM_NPU_WHEEL_OFFLINE=1" in message
    assert not list(tmp_path.glob("wheels/*.whl"))


def test_offline_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("EXTSTREAM_NPU_WHEEL_OFFLINE", raising=False)
    assert not _npu_wheel.offline()
    monkeypatch.setenv("EXTSTREAM_NPU_WHEEL_OFFLINE", "0")
    assert not _npu_wheel.offline()
    monkeypatch.setenv("EXTSTREAM_NPU_WHEEL_OFFLINE", "1")
    assert _npu_wheel.offline()


def test_cached_tree_holds_the_real_python_files() -> None:
    tree = wheel_tree(_npu_wheel.DEFAULT_VERSION)
    streams = tree / "torch_npu" / "npu" / "streams.py"
    assert "class ExternalStream(Stream):" in streams.read_text(encoding="utf-8")
    assert not list(tree.rglob("*.so"))  # only Python files are extracted
