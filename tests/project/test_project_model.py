"""The project model on projects with dense import cycles: counted, never timed.

300 modules each importing 8 random siblings, a hub imported by most of them (so nearly
everything is one import cycle), with and without an adapter module whose ExternalStream
the hub re-exports, and a leaf whose misuse crosses modules and the cycle. Every way
extstream runs must open each project file at most once and parse it at most once, find
the misuse, and on a warm run do only what changed. These counts do not depend on load.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from extstream_lint.analysis.driver import engine, index, projects
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
from extstream_lint.frontends import cli
from extstream_lint.project import sources

SIZE = 300
_ADAPTER = (
    "from torch_npu.npu import ExternalStream\n\n\n"
    "def make_ext(ptr):\n    return ExternalStream(ptr)\n"
)
#: The leaf: the stream comes through the hub, the sink two modules down, inside the cycle.
_LEAF = (
    "from gen.hub import make_ext\nfrom gen.m001 import relay\n\n\n"
    "def run(ptr):\n    relay(make_ext(ptr))\n"
)
_LEAF_LINE = 6


def _module(n: int, rng: random.Random) -> str:
    siblings = sorted(rng.sample([k for k in range(SIZE) if k != n], 8))
    lines = [f"from gen import m{k:03d}" for k in siblings]
    if n % 10:
        lines.append("from gen import hub")
    body = [f"\n\ndef f{n}(x):\n    return x\n"]
    if n == 1:  # the relay calls into m002's helper (both inside the cycle)
        lines.append("from gen.m002 import sink")
        body.append("\n\ndef relay(s):\n    sink(s)\n")
    if n == 2:
        body.append("\n\ndef sink(s):\n    s.synchronize()\n")
    return "\n".join(lines) + "\n" + "".join(body)


def _project(root: Path, adapter: bool) -> Path:
    rng = random.Random(15)
    gen = root / "gen"
    gen.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    (gen / "__init__.py").write_text("", encoding="utf-8")
    for n in range(SIZE):
        (gen / f"m{n:03d}.py").write_text(_module(n, rng), encoding="utf-8")
    hub = "".join(f"from gen import m{k:03d}\n" for k in range(0, SIZE, 37))
    if adapter:
        (gen / "adapter.py").write_text(_ADAPTER, encoding="utf-8")
        hub += "from gen.adapter import make_ext\n"
    (gen / "hub.py").write_text(hub, encoding="utf-8")
    (gen / "leaf.py").write_text(_LEAF, encoding="utf-8")
    return root


def _forget() -> None:
    """A new process: nothing learnt in memory."""
    projects._INDEXES.clear()
    sources._SHARED.clear()


def _counted(action):
    opens, parses = sources.OPENS.copy(), index.PARSES.copy()
    result = action()
    return result, sources.OPENS - opens, index.PARSES - parses


def _cli(root: Path, cache: bool, jobs: int = 1, paths: tuple[str, ...] = ()) -> set[tuple]:
    options = cli.Options(
        paths or (str(root / "gen"),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=jobs,
        cache=cache,
    )
    return {(os.path.basename(i.path), i.finding.line, i.finding.code) for i in cli.run(options)}


def _leaf_found(found: set[tuple]) -> bool:
    return any(name == "leaf.py" and line == _LEAF_LINE for name, line, _ in found)


def _at_most_once(counts: Counter) -> None:
    assert counts, "the run read or parsed nothing"
    assert max(counts.values()) == 1, counts.most_common(3)


@pytest.fixture(scope="module")
def dense(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("dense"), adapter=True)


def test_cli_on_a_tree_reads_and_parses_each_file_once(dense: Path) -> None:
    _forget()
    found, opens, parses = _counted(lambda: _cli(dense, cache=False))
    assert _leaf_found(found)
    assert len(opens) == SIZE + 4 and max(opens.values()) == 1  # every file, once
    _at_most_once(parses)


def test_without_an_adapter_nothing_is_parsed(tmp_path: Path) -> None:
    root = _project(tmp_path, adapter=False)
    _forget()
    found, opens, parses = _counted(lambda: _cli(root, cache=False))
    assert found == set()
    assert max(opens.values()) == 1
    assert not parses


def test_parallel_cli_finds_the_same(dense: Path) -> None:
    _forget()
    serial = _cli(dense, cache=False)
    _forget()
    assert _cli(dense, cache=False, jobs=2) == serial


def test_stdin_reads_and_parses_each_file_once(dense: Path, monkeypatch) -> None:
    import io

    leaf = dense / "gen" / "leaf.py"
    data = leaf.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    _forget()
    options = cli.Options(
        ("-",), cli.Selection(("XST",), (), (), str(dense)), (), str(dense), jobs=1, cache=False
    )
    options.stdin_filename = str(leaf)
    found, opens, parses = _counted(lambda: cli.run(options))
    assert [(i.finding.line) for i in found] == [_LEAF_LINE]
    _at_most_once(opens)
    _at_most_once(parses)


def test_file_by_file_in_one_process_reads_and_parses_each_file_once(dense: Path) -> None:
    # flake8 -j1: one checker per file, in one process; flake8 parses options first.
    import ast

    from extstream_lint.frontends.flake8_plugin import ExtStreamChecker

    _forget()
    found: set[tuple] = set()

    def lint_all() -> None:
        ExtStreamChecker.parse_options(None)
        for path in sorted((dense / "gen").glob("*.py")):
            text = path.read_text(encoding="utf-8")
            checker = ExtStreamChecker(ast.parse(text), text.splitlines(True), str(path))
            found.update((path.name, line) for line, _, _, _ in checker.run())

    from extstream_lint.project import modules

    try:
        _, opens, parses = _counted(lint_all)
    finally:
        modules._RUN = None  # flake8's run ends with its process; this one ends here
    assert ("leaf.py", _LEAF_LINE) in found
    _at_most_once(opens)
    _at_most_once(parses)
    # The pre-filter and the analysis ask one import graph: each file's imports once.
    scanned = Counter(path for facts in sources._SHARED.values() for path in facts.scanned)
    _at_most_once(scanned)


_FLAKE8_DRIVER = """
import json, sys
from flake8.main.application import Application
from extstream_lint.project import sources
from extstream_lint.analysis.driver import index
app = Application()
app.run(["-j1", "--isolated", "--select=XST", sys.argv[1]])
print(json.dumps([max(sources.OPENS.values()), max(index.PARSES.values() or [0])]))
"""


def test_flake8_on_a_tree_reads_and_parses_each_file_once(dense: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _FLAKE8_DRIVER, str(dense / "gen")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
        cwd=os.getcwd(),
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    assert any(f"leaf.py:{_LEAF_LINE}:" in line for line in lines), proc.stdout + proc.stderr
    opens, parses = json.loads(lines[-1])
    assert opens == 1 and parses <= 1  # (none if an earlier test left the cache warm)


def test_warm_runs_do_only_what_changed(tmp_path: Path) -> None:
    root = _project(tmp_path, adapter=True)
    _forget()
    cold = _cli(root, cache=True)
    assert _leaf_found(cold)
    _forget()
    warm, _opens, parses = _counted(lambda: _cli(root, cache=True))
    assert warm == cold
    assert not parses  # nothing changed: nothing parsed

    # An edit that changes no exported fact (a comment): only that module is parsed, in
    # or out of the cycle (the cycle's other summaries are replayed, not recomputed).
    for edited in (root / "gen" / "adapter.py", root / "gen" / "m005.py"):
        edited.write_text(edited.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
        _forget()
        again, _opens, parses = _counted(lambda: _cli(root, cache=True))
        assert again == cold
        assert set(parses) == {str(edited)}

    # A new export that no one reads: only the module that has it is parsed again (its
    # importers read ``make_ext`` alone, whose facts are unchanged).
    edited = root / "gen" / "adapter.py"
    edited.write_text(
        edited.read_text(encoding="utf-8") + "\n\ndef unused():\n    return 1\n",
        encoding="utf-8",
    )
    _forget()
    again, _opens, parses = _counted(lambda: _cli(root, cache=True))
    assert again == cold
    assert set(parses) == {str(edited)}

    # An edit of the adapter's exports: its dependents are recomputed, the result changes.
    adapter = root / "gen" / "adapter.py"
    adapter.write_text("import torch\n\n\ndef make_ext(ptr):\n    return torch.npu.Stream()\n")
    os.utime(adapter, ns=(os.stat(adapter).st_mtime_ns + 10**9,) * 2)
    _forget()
    changed, _opens, parses = _counted(lambda: _cli(root, cache=True))
    assert not _leaf_found(changed)
    _forget()
    assert _cli(root, cache=False) == changed


def test_a_file_over_its_budget_gets_one_xst000_and_the_run_goes_on(
    dense: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BudgetedInterpreter, "__init__", _tiny_budget(BudgetedInterpreter.__init__))
    _forget()
    found = engine.analyze_source(
        (dense / "gen" / "leaf.py").read_text(), str(dense / "gen" / "leaf.py")
    )
    assert [f.code for f in found] == ["XST000"]
    assert "leaf.py" in found[0].message and "budget of 3 statement" in found[0].message


def _tiny_budget(init):
    def patched(self, *args, budget=None, **kwargs):
        init(self, *args, budget=3, **kwargs)

    return patched


def test_a_summarised_module_learns_once_when_it_is_linted_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary of ``relay`` (for ``user``) followed every import, as its lint would:
    the lint runs only the reporting pass on the same interpreter, and finds the same."""
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "__init__.py").write_text("")
    (gen / "adapter.py").write_text(_ADAPTER)
    (gen / "relay.py").write_text(
        "from gen.adapter import make_ext\n\n\ndef relay(ptr):\n"
        "    stream = make_ext(ptr)\n    stream.synchronize()\n    return stream\n"
    )
    (gen / "user.py").write_text("from gen.relay import relay\n\nrelay(1).query()\n")
    from extstream_lint.analysis.interp.core import Core

    learnt: Counter[str] = Counter()
    learn = Core._learn

    def counted(self) -> None:
        learnt[self.module_name] += 1
        learn(self)

    monkeypatch.setattr(Core, "_learn", counted)
    _forget()
    found = _cli(tmp_path, cache=False, paths=(str(gen / "user.py"), str(gen / "relay.py")))
    assert {(name, code) for name, _, code in found} == {
        ("relay.py", "XST101"),
        ("user.py", "XST102"),
    }
    assert learnt["gen.relay"] == 1, learnt


def test_a_run_rarely_collects_garbage_and_restores_the_collectors_settings(
    dense: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Full collections walk every tree the run keeps: with CPython's default thresholds
    they were about 40% of a cold run on the standard library. Counted, not timed."""
    import gc

    from extstream_lint.analysis.interp.core import Core

    seen: list[tuple[int, int, int]] = []
    learn = Core._learn

    def noting(self) -> None:
        seen.append(gc.get_threshold())
        learn(self)

    monkeypatch.setattr(Core, "_learn", noting)
    before = gc.get_threshold()
    full = gc.get_stats()[2]["collections"]
    _forget()
    assert _leaf_found(_cli(dense, cache=False))
    assert gc.get_stats()[2]["collections"] - full <= 1
    assert seen and all(threshold[0] >= 200_000 for threshold in seen)
    assert gc.get_threshold() == before
