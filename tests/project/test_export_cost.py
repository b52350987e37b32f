"""What making, exporting and keeping a summary costs: counted, never timed.

A summary is exported (its libcst nodes made places, what the interpreter may still change
copied, the rest shared), pickled only for a reader (the disk cache, or a later run of a
process that analyses again), and a kept one is read back whole: each test also checks the
finding the project must carry, so a cheaper path can never pass by knowing less.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.abstract import exported
from extstream_lint.analysis.abstract.atoms import Const, ExtStream, Remote
from extstream_lint.analysis.driver import reuse
from extstream_lint.analysis.driver.cache import DiskCache
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project import safe_pickle

RING = 6


def _write(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            stamp = path.stat().st_mtime_ns + 1_000_000_000  # a new stamp, however fast
            os.utime(path, ns=(stamp, stamp))


#: A store under a key the analysis does not know: ``Const(...)`` in the summary.
_STORES = (
    "\n\nimport os\n\n_seen = {}\n\n\n"
    "def remember(s, path):\n    _seen[os.path.normcase(path)] = s\n"
)


def _ring(edit: int = 0) -> dict[str, str]:
    """m0 -> m1 -> ... -> m5 -> m0, the last synchronizing what the first is given; m0
    also holds ``...`` (a store's unknown key), and ``edit`` changes a body of m2 without
    changing any fact."""
    files = {
        "gen/__init__.py": "",
        "leaf.py": (
            "from torch_npu.npu import ExternalStream\nfrom gen.m0 import f\n\n\n"
            "def run(ptr):\n    f(ExternalStream(ptr))\n"
        ),
    }
    for n in range(RING):
        following = (n + 1) % RING
        body = "    s.synchronize()\n" if n == RING - 1 else f"    m{following}.f(s)\n"
        extra = _STORES if n == 0 else ""
        if n == 2:
            extra += f"\n\ndef edited():\n    return {edit}\n"
        files[f"gen/m{n}.py"] = f"from gen import m{following}\n\n\ndef f(s):\n{body}{extra}"
    return files


def _codes(root: Path, project: ProjectIndex) -> list[tuple[int, str]]:
    path = root / "leaf.py"
    found = analyze_source(path.read_text(encoding="utf-8"), str(path), project=project)
    return [(f.line, f.code) for f in found]


def test_a_run_that_keeps_nothing_pickles_no_summary(tmp_path: Path) -> None:
    """Without a disk cache, in a process that does not analyse again (the command line,
    flake8), a cycle's summaries are pickled for no one: none is. A process that does (the
    language server, ``lasting``) and a disk cache pickle each member's."""
    _write(tmp_path, _ring())
    before = reuse.BODIES.copy()
    assert _codes(tmp_path, ProjectIndex()) == [(6, "XST101")]
    assert not reuse.BODIES - before  # none pickled
    for project in (ProjectIndex(lasting=True), ProjectIndex(cache=DiskCache())):
        before = reuse.BODIES.copy()
        assert _codes(tmp_path, project) == [(6, "XST101")]
        pickled = reuse.BODIES - before
        assert {f"gen.m{n}" for n in range(RING)} <= set(pickled), pickled


@pytest.mark.parametrize("kept", ["memory", "disk"])
def test_an_edit_in_a_cycle_summarises_the_edited_member_alone(
    tmp_path: Path, summaries: Counter[str], kept: str
) -> None:
    """After an edit of one member that changes no fact its importers read, the others are
    replayed (from memory in a lasting process, from the disk cache otherwise), not
    summarised from source, and what is written again is the edited member's entry and
    replays and its importer's entry (which records its digest). m0 holds ``...``: its
    kept body must read back (the restricted unpickler refused ``builtins.Ellipsis``, so a
    hub holding one was summarised again on every edit of its cycle, with its readers)."""
    _write(tmp_path, _ring())
    lasting = ProjectIndex(lasting=True)
    project = lasting if kept == "memory" else ProjectIndex(cache=DiskCache())
    assert _codes(tmp_path, project) == [(6, "XST101")]
    _write(tmp_path, _ring(edit=1))
    summaries.clear()
    project = lasting if kept == "memory" else ProjectIndex(cache=DiskCache())
    assert _codes(tmp_path, project) == [(6, "XST101")]
    assert summaries == Counter({"m2.py": 1}), summaries
    if isinstance(project.cache, DiskCache):
        assert project.cache.writes <= 3  # m2's entry and replays, m1's entry


def test_a_reference_needs_its_reader() -> None:
    """What the writer's table made a reference is resolved by the reader alone: bytes
    that hold one and reach an unpickler without a resolver are refused."""

    class Held:
        def __reduce__(self) -> tuple[object, tuple[str, str]]:
            return safe_pickle.reference, ("module", "gen.m0")

    import pickle

    data = pickle.dumps([Held()], protocol=pickle.HIGHEST_PROTOCOL)
    with pytest.raises(safe_pickle.UnsafeEntry):
        safe_pickle.loads(data)
    assert safe_pickle.loads(data, lambda key: ("resolved", key)) == [
        ("resolved", ("module", "gen.m0"))
    ]
    assert safe_pickle.loads(pickle.dumps((..., NotImplemented))) == (..., NotImplemented)


def test_export_shares_what_cannot_change_and_copies_what_can(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Immutable values without a node under them are the interpreter's own objects;
    dicts, lists, sets and what holds them are copies; a node is a place. The copy makes
    no call of its own per leaf, nor per immutable value made of leaves."""
    tree = cst.parse_module("x = 1\ns = make(2)\n")
    call = tree.body[1].body[0].value  # type: ignore[attr-defined]
    names = tuple(f"name{n}" for n in range(1000))
    values: dict[str, object] = {
        "names": names,
        "const": Const(3),
        "holds_list": Const([1, 2]),
        "table": {"k": [names, "v"], "s": {1, 2}},
        "stream": ExtStream(True, "created", call),
    }
    calls = Counter[str]()
    original = exported._copy

    def counting(*args: object) -> object:
        calls["copy"] += 1
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(exported, "_copy", counting)
    out = exported.export(values, tree, tree.code, "pkg/m.py")  # type: ignore[arg-type]
    assert out == {**values, "stream": ExtStream(True, "created", Remote("pkg/m.py", 2))}
    assert out["names"] is names and out["const"] is values["const"]
    assert out["holds_list"] is not values["holds_list"]
    assert out["holds_list"].value is not values["holds_list"].value  # type: ignore[attr-defined]
    assert out["table"] is not values["table"] and out["table"]["k"][0] is names  # type: ignore[index]
    assert out["table"]["s"] is not values["table"]["s"]  # type: ignore[index]
    assert out["stream"].origin == Remote("pkg/m.py", 2)  # type: ignore[attr-defined]
    assert calls["copy"] <= 12, calls  # one per value that is not a leaf, not per leaf
