"""Fixtures the project-model tests share."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from extstream_lint.analysis.driver.index import ProjectIndex


@pytest.fixture
def summaries(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every summary computed from source, by file name (a count per run, not a clock)."""
    counted: Counter[str] = Counter()
    original = ProjectIndex._summarise

    def counting(self: ProjectIndex, path: str, *args: object) -> object:
        counted[Path(path).name] += 1
        return original(self, path, *args)

    monkeypatch.setattr(ProjectIndex, "_summarise", counting)
    return counted
