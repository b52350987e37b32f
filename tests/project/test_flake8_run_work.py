"""flake8 -j1 does the CLI's work, once per run, not once per file: counted, never timed.

flake8 hands the plugin one file at a time; the run (:func:`.modules.new_run`, started at
option parsing) keeps the project index, so a tree of ``n`` files that each import the
same modules summarises each module once and parses each file once. Measured on
bench_real's standard-library trees at 8647fa4, flake8's path and the CLI's executed the
same statements (97,548 and 97,541 on the overlay; 180,687 and 181,987 on the prefixed set,
the files taken in another order) and computed the same 49 and 61 summaries: the plugin's
cost there is the engine's. These tests keep it so: the statements a flake8 run executes
grow by the same amount per added file (not by files times modules), each module is
summarised at most once, and the CLI on the same tree executes as many. A module linted
before an importer asks for its summary learns once: its lint builds the summary's entry
(:mod:`extstream_lint.analysis.driver.linted`), the same as a fresh summary's.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from extstream_lint.analysis.driver import projects
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.analysis.interp.core import Core
from extstream_lint.frontends import cli
from extstream_lint.project import modules, sources
from extstream_lint.project.diskio import CACHE_DIR

#: A factory, a helper with a loop and a class: what every user module imports.
_STREAMS = """\
import torch
from torch_npu.npu import ExternalStream


def make(ptr):
    return ExternalStream(ptr)


def drain(streams, flag):
    for s in streams:
        if flag:
            s.synchronize()
    return streams


class Holder:
    def __init__(self, ptr):
        self.s = make(ptr)
        self.other = torch.npu.Stream()

    def wait(self):
        self.other.synchronize()
        return self.s
"""
#: Re-exports the factory (the hub of bench_real's overlay, small).
_HUB = "from gen.streams import Holder, drain, make\n\n__all__ = ['Holder', 'drain', 'make']\n"
#: One user: XST101 through the hub's helper (line 6) and the holder's stream (line 11).
_USER = """\
from gen import hub


def run{k}(ptr):
    s = hub.make(ptr)
    hub.drain([s], True)


def hold{k}(ptr):
    h = hub.Holder(ptr)
    h.wait().synchronize()
    return h
"""


def _tree(root: Path, users: int) -> Path:
    gen = root / "gen"
    gen.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    (gen / "__init__.py").write_text("", encoding="utf-8")
    (gen / "streams.py").write_text(_STREAMS, encoding="utf-8")
    (gen / "hub.py").write_text(_HUB, encoding="utf-8")
    for k in range(users):
        (gen / f"u{k:02d}.py").write_text(_USER.format(k=k), encoding="utf-8")
    return root


class _Work:
    """Statements executed (every interpreter of the run) and summaries computed, by file."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.statements = 0
        self.summaries: Counter[str] = Counter()
        self.learnt: Counter[str] = Counter()  # learning passes run, by module
        original_exec, original_summarise = (
            BudgetedInterpreter.exec_stmt,
            ProjectIndex._summarise,
        )

        def exec_stmt(interp: BudgetedInterpreter, *args: object) -> object:
            self.statements += 1
            return original_exec(interp, *args)  # type: ignore[arg-type]

        def summarise(index: ProjectIndex, path: str, *args: object) -> object:
            self.summaries[Path(path).name] += 1
            return original_summarise(index, path, *args)  # type: ignore[arg-type]

        learn = Core._learn

        def learning(interp: Core) -> None:
            self.learnt[interp.module_name] += 1
            learn(interp)

        monkeypatch.setattr(Core, "_learn", learning)
        monkeypatch.setattr(BudgetedInterpreter, "exec_stmt", exec_stmt)
        monkeypatch.setattr(ProjectIndex, "_summarise", summarise)


def _forget() -> None:
    """A new process: nothing learnt in memory."""
    projects._INDEXES.clear()
    sources._SHARED.clear()
    modules._RUN = None


def _flake8(
    root: Path, monkeypatch: pytest.MonkeyPatch, files: list[str] | None = None
) -> tuple[_Work, list[str]]:
    from flake8.main.cli import main

    _forget()
    work = _Work(monkeypatch)
    out = root / "flake8.txt"
    monkeypatch.chdir(root)
    # In the CLI's order (sorted paths) unless given: flake8 keeps the order of its
    # arguments, while a directory it walks comes in the file system's order, in which a
    # module may be linted before any importer asks for its summary.
    if files is None:
        files = sorted(str(p.relative_to(root)) for p in (root / "gen").glob("*.py"))
    args = ["--isolated", "--select=XST", "-j", "1", "--output-file", str(out), *files]
    try:
        assert main(args) == 1  # findings
    finally:
        _forget()
    return work, out.read_text(encoding="utf-8").splitlines()


def _cli(root: Path, monkeypatch: pytest.MonkeyPatch) -> _Work:
    _forget()
    work = _Work(monkeypatch)
    selection = cli.Selection(("XST",), (), (), str(root))
    options = cli.Options((str(root / "gen"),), selection, (), str(root), jobs=1, cache=False)
    try:
        found = list(cli.run(options))
    finally:
        _forget()
    assert found
    return work


@pytest.mark.parametrize("users", [2, 4, 8])
def test_flake8_summarises_each_module_once_and_finds_every_users_misuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, users: int
) -> None:
    work, lines = _flake8(_tree(tmp_path, users), monkeypatch)
    for k in range(users):
        for line in (6, 11):
            assert any(f"u{k:02d}.py:{line}:" in x and "XST101" in x for x in lines), lines
    assert work.summaries, "nothing summarised: the tree no longer exercises imports"
    assert max(work.summaries.values()) == 1, work.summaries


def test_flake8_statements_grow_by_one_files_worth_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Identical user modules: each added one costs the same statements, whatever the
    number before it (per file times modules would make the steps grow)."""
    counts = {
        users: _flake8(_tree(tmp_path / str(users), users), monkeypatch)[0].statements
        for users in (2, 4, 8)
    }
    step = counts[4] - counts[2]
    assert step > 0, counts
    assert counts[8] - counts[4] == 2 * step, counts


def test_flake8_executes_what_the_cli_executes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path, 4)
    through_flake8, _ = _flake8(root, monkeypatch)
    monkeypatch.undo()
    through_cli = _cli(root, monkeypatch)
    assert through_flake8.summaries == through_cli.summaries
    assert through_flake8.statements == through_cli.statements


def test_a_module_linted_before_its_importers_learns_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hub`` is linted before ``u00`` asks for its summary (sorted order, as the CLI's):
    its lint learns it, and its summary is the entry the lint built."""
    work, _ = _flake8(_tree(tmp_path, 2), monkeypatch)
    assert work.learnt["gen.hub"] == 1, work.learnt


def _entries(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[object, ...]]:
    """What each summary computed in a run is, as its importers and the cache see it."""
    seen: dict[str, tuple[object, ...]] = {}
    original = ProjectIndex._summarise

    def summarise(index: ProjectIndex, path: str, name: str, *args: object) -> object:
        entry = original(index, path, name, *args)  # type: ignore[arg-type]
        if entry is not None:
            facts = (entry.digest, entry.exports, entry.links, entry.reads, entry.deps)
            seen[name] = (*facts, entry.external)
        return entry

    monkeypatch.setattr(ProjectIndex, "_summarise", summarise)
    return seen


def test_a_summary_a_lint_built_is_a_fresh_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``streams`` and ``hub`` linted before their importers (in the arguments' order):
    the summaries the importers read are the entries the lints built, with the digests,
    readings and dependencies of summaries computed fresh (only ``u00`` linted). The lint
    builds its entry before its reporting pass, which may change what the exports reach."""
    root = _tree(tmp_path, 2)
    order = ["gen/streams.py", "gen/hub.py", "gen/u00.py", "gen/u01.py"]
    taken = _entries(monkeypatch)
    work, lines = _flake8(root, monkeypatch, order)
    assert work.learnt["gen.streams"] == 1 and work.learnt["gen.hub"] == 1, work.learnt
    assert any("u00.py:6:" in x and "XST101" in x for x in lines), lines
    monkeypatch.undo()
    shutil.rmtree(root / CACHE_DIR, ignore_errors=True)  # summaries computed, not revived
    fresh = _entries(monkeypatch)
    _flake8(root, monkeypatch, ["gen/u00.py"])
    assert {"gen.streams", "gen.hub"} <= set(taken), taken
    assert {"gen.streams", "gen.hub"} <= set(fresh), fresh
    for name in ("gen.streams", "gen.hub"):
        assert taken[name] == fresh[name], name
