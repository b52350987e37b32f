"""The wheel's Python tree for guard tests: fail loudly when it cannot be fetched.

A failed download fails the test that needed the wheel, unless ``EXTSTREAM_NPU_WHEEL_OFFLINE=1``
asks for a skip (see ``tests/_npu_wheel.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import _npu_wheel


def wheel_tree(version: str) -> Path:
    """The wheel's Python tree; fails (or skips when offline is requested) if unavailable."""
    try:
        return _npu_wheel.python_tree(version)
    except _npu_wheel.WheelUnavailable as exc:
        if _npu_wheel.offline():
            pytest.skip(f"EXTSTREAM_NPU_WHEEL_OFFLINE set: {exc}")
        pytest.fail(str(exc), pytrace=False)
