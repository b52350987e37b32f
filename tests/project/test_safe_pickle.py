"""The on-disk cache is read without trusting it: a planted entry cannot run code."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project import safe_pickle

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "proj"


class _Planted:
    """What an attacker commits: unpickling it calls os.system (or anything else)."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (self.command,))


def test_real_summaries_round_trip() -> None:
    index = ProjectIndex()
    app = FIXTURE / "app.py"
    analyze_source(app.read_text(encoding="utf-8"), str(app), project=index)
    entries = list(index._entries.values())
    assert entries  # the fixture imports project modules
    for entry in entries:
        data = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
        loaded = safe_pickle.loads(data)
        assert type(loaded) is type(entry)
        assert pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL) == data


def test_summaries_holding_enum_members_round_trip(tmp_path: Path) -> None:
    # A module exporting an enum: its members are literals of abstract/members.py, which the
    # unpickler must resolve, or every warm run re-analyses the module as a corrupt entry.
    (tmp_path / "kinds.py").write_text(
        "from enum import Enum\n\n\nclass Kind(Enum):\n    EXTERNAL = 1\n    MANAGED = 2\n",
        encoding="utf-8",
    )
    app = tmp_path / "app.py"
    app.write_text(
        "from torch_npu.npu import ExternalStream\nfrom kinds import Kind\n\n"
        "def make(h, kind):\n    if kind is Kind.EXTERNAL:\n        return ExternalStream(h)\n",
        encoding="utf-8",
    )
    index = ProjectIndex()
    analyze_source(app.read_text(encoding="utf-8"), str(app), project=index)
    data = [pickle.dumps(e, protocol=pickle.HIGHEST_PROTOCOL) for e in index._entries.values()]
    assert any(b"members" in blob for blob in data)  # the enum's members are in an entry
    for blob in data:
        safe_pickle.loads(blob)


@pytest.mark.parametrize(
    "payload",
    [
        lambda marker: _Planted(f"touch {marker}"),
        lambda marker: {"ok": [1, 2], "bad": _Planted(f"touch {marker}")},
    ],
    ids=["top-level", "nested"],
)
def test_a_planted_entry_runs_nothing(tmp_path: Path, payload: object) -> None:
    marker = tmp_path / "ran"
    data = pickle.dumps(payload(marker), protocol=pickle.HIGHEST_PROTOCOL)  # type: ignore[operator]
    with pytest.raises(safe_pickle.UnsafeEntry, match=r"(posix|nt|os)\.system"):
        safe_pickle.loads(data)
    assert not marker.exists()


def test_only_data_classes_of_the_analysis_are_resolved() -> None:
    from extstream_lint.analysis.driver.index import ProjectIndex as NotData

    with pytest.raises(safe_pickle.UnsafeEntry):
        safe_pickle.loads(pickle.dumps(NotData, protocol=pickle.HIGHEST_PROTOCOL))
    assert safe_pickle.loads(pickle.dumps(frozenset({1}))) == frozenset({1})


def test_the_fingerprint_follows_the_source() -> None:
    first = safe_pickle.code_fingerprint()
    assert len(first) == 16 and first == safe_pickle.code_fingerprint()
    safe_pickle.code_fingerprint.cache_clear()
    assert safe_pickle.code_fingerprint() == first  # same files, same digest
