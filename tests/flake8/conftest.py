"""Fixtures for the flake8 integration tests (helpers live in ``xst_flake8_support``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xst_flake8_support import Flake8Run, run_flake8


@pytest.fixture
def flake8(tmp_path: Path):
    """``flake8(*args, stdin=None)`` run inside the test's temporary directory."""

    def _run(*args: str, stdin: str | bytes | None = None) -> Flake8Run:
        return run_flake8(args, cwd=tmp_path, stdin=stdin)

    return _run


@pytest.fixture
def write(tmp_path: Path):
    """``write(name, text_or_bytes)`` creates a file in the temporary directory."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write
