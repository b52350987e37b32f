"""Precision on real code: libraries that mention external streams are not misusing them.

torch's CUDA ``ExternalStream``, ``torch.cuda.Stream(stream_ptr=...)`` users, and torch_npu's own
sources are correct code; any finding on them is a false alarm, and any XST000 on a file CPython
accepts means the analysis broke on real syntax.
"""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from tests import _npu_wheel
from tests._skips import NO_TORCH


def _candidates(root: Path) -> list[tuple[Path, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        # The markers alone, without the pre-filter's "npu" test: torch's CUDA stream code
        # must be analysed here to prove it gives no false alarm.
        if "ExternalStream" in text or "stream_ptr" in text:
            found.append((path, text))
    return found


def _false_alarms(files: list[tuple[Path, str]]) -> list[str]:
    problems = []
    for path, text in files:
        try:
            ast.parse(text)
        except SyntaxError:
            continue  # not valid for this Python: XST000 would be right
        for finding in analyze_source(text, str(path)):
            problems.append(f"{path}:{finding.line}: {finding.message[:160]}")
    return problems


def test_site_packages_that_mention_external_streams_are_clean() -> None:
    # torch's CUDA stream sources are the point of this test (and the bulk of the files)
    pytest.importorskip("torch", reason=NO_TORCH)
    files = _candidates(Path(sysconfig.get_paths()["purelib"]))
    assert len(files) >= 5, "torch's CUDA stream sources should be among them"
    assert _false_alarms(files) == []


def test_torch_npu_wheel_sources_are_clean() -> None:
    try:
        tree = _npu_wheel.python_tree(_npu_wheel.DEFAULT_VERSION)
    except _npu_wheel.WheelUnavailable as exc:
        if _npu_wheel.offline():
            pytest.skip(f"EXTSTREAM_NPU_WHEEL_OFFLINE set: {exc}")
        pytest.fail(str(exc), pytrace=False)
    files = _candidates(tree)
    assert any(p.name == "streams.py" for p, _ in files)
    assert _false_alarms(files) == []
