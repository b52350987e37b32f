"""Each body is walked at most once per question per run: counted, never timed.

A module is interpreted several times in one run (its summary, each round of the import
cycle it is on, the lint of the file), and every interpreter asks the same syntax questions
of its bodies (:mod:`extstream_lint.analysis.source.bodies`: which parameters a body tests, what it
does through ``self``, what it calls by name, whether an ``__init__`` chains). The answers
are learnt once per node per run and shared; these tests count the walks on a generated
worst case (every module on one import cycle, with subclasses, literal flags and helpers
defined after their callers) through the CLI and through flake8, and check that the count
would see a regression: without a run, two analyses of the same file walk twice.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from extstream_lint.analysis.driver import projects
from extstream_lint.analysis.interp import core
from extstream_lint.analysis.source import bodies, syntax
from extstream_lint.frontends import cli
from extstream_lint.project import sources

SIZE = 12
#: Module ``k`` imports module ``k + 1``: all of them one import cycle.
_MODULE = """\
import torch
from torch_npu.npu import ExternalStream

from gen import m{next:02d}


class Base{k}:
    def __init__(self, ptr):
        self.s = self._make(ptr)

    def _make(self, ptr):
        return ExternalStream(ptr)

    def flush(self, enable):
        if enable:
            self.s.synchronize()


class Sub{k}(Base{k}):
    def __init__(self, ptr):
        super().__init__(ptr)

    def _make(self, ptr):
        return torch.npu.Stream()

    def go(self):
        return helper{k}(self, False)


def run{k}(ptr):
    helper{k}(Base{k}(ptr), True)
    return late{k}(ptr, True)


def late{k}(ptr, flag):
    if not flag:
        return None
    return ExternalStream(ptr)


def helper{k}(obj, enable):
    obj.flush(enable)
    return m{next:02d}.late{next}(0, enable)
"""
#: ``self.s.synchronize()`` in ``Base{k}.flush``: ``self.s`` is the ExternalStream
#: ``Base{k}._make`` returns (XST101).
_FINDING_LINE = 16


def _project(root: Path) -> Path:
    gen = root / "gen"
    gen.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    (gen / "__init__.py").write_text("", encoding="utf-8")
    for k in range(SIZE):
        text = _MODULE.format(k=k, next=(k + 1) % SIZE)
        (gen / f"m{k:02d}.py").write_text(text, encoding="utf-8")
    return root


def _forget() -> None:
    """A new process: nothing learnt in memory."""
    projects._INDEXES.clear()
    sources._SHARED.clear()


class _Counted:
    """Walks per (question, node), and interpreters made per tree."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.walks: Counter[tuple[str, int]] = Counter()
        self.interpreters: Counter[int] = Counter()
        self._keep: list[cst.CSTNode] = []  # ids stay unique while counted
        for question, name, module in (
            ("tested", "tested_params", bodies),
            ("self", "self_uses", bodies),
            ("called", "called_names", bodies),
            ("init", "init_chains", bodies),
        ):
            monkeypatch.setattr(module, name, self._wrap(question, getattr(module, name)))
        shared = core.bodies_for

        def bodies_for(module: cst.Module) -> bodies.Bodies:
            self._keep.append(module)
            self.interpreters[id(module)] += 1
            return shared(module)

        monkeypatch.setattr(core, "bodies_for", bodies_for)

    def _wrap(self, question: str, walk):
        def counted(node: cst.CSTNode):
            self._keep.append(node)
            self.walks[question, id(node)] += 1
            return walk(node)

        return counted

    def questions(self) -> set[str]:
        return {question for question, _ in self.walks}


def _cli(root: Path) -> set[tuple[str, int, str]]:
    options = cli.Options(
        (str(root / "gen"),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=1,
        cache=False,
    )
    return {(os.path.basename(i.path), i.finding.line, i.finding.code) for i in cli.run(options)}


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("walks"))


def test_cli_walks_each_body_once_per_question(
    cycle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _forget()
    counted = _Counted(monkeypatch)
    found = _cli(cycle)
    # The analysis ran in full: every module's own misuse is found.
    assert {(f"m{k:02d}.py", _FINDING_LINE, "XST101") for k in range(SIZE)} <= found
    # The worst case it is meant to be: trees interpreted more than once, every question asked.
    assert max(counted.interpreters.values()) > 1, counted.interpreters
    assert counted.questions() == {"tested", "self", "called", "init"}
    assert max(counted.walks.values()) == 1, counted.walks.most_common(3)


def test_flake8_walks_each_body_once_per_question(
    cycle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """flake8 hands the plugin one file at a time; one flake8 run is one run."""
    from flake8.main.cli import main

    _forget()
    counted = _Counted(monkeypatch)
    monkeypatch.chdir(cycle)
    assert main(["--isolated", "--select=XST", "-j", "1", "gen"]) == 1  # findings
    assert max(counted.interpreters.values()) > 1, counted.interpreters
    assert counted.questions() == {"tested", "self", "called", "init"}
    assert max(counted.walks.values()) == 1, counted.walks.most_common(3)


def test_the_count_sees_repeated_walks(cycle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The twin: with each interpreter given its own answers (as before they were shared),
    the same run walks bodies again, so the tests above would see that regression."""
    _forget()
    counted = _Counted(monkeypatch)
    monkeypatch.setattr(bodies, "run_memo", lambda *_: None)  # nothing shared
    found = _cli(cycle)
    assert {(f"m{k:02d}.py", _FINDING_LINE, "XST101") for k in range(SIZE)} <= found
    assert max(counted.walks.values()) > 1


def test_push_children_is_children(cycle: Path) -> None:
    """The walks' inner loop gives the same nodes in the same order as :func:`children`."""
    text = (cycle / "gen" / "m00.py").read_text(encoding="utf-8")
    stack: list[cst.CSTNode] = [cst.parse_module(text)]
    seen = 0
    while stack:
        node = stack.pop()
        pushed: list[cst.CSTNode] = []
        syntax.push_children(node, pushed)
        assert pushed == list(syntax.children(node))
        stack.extend(pushed)
        seen += 1
    assert seen > 100
