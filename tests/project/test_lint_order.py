"""A run's findings do not depend on the order its files are linted in, on ``-j``, or on
flake8 against the CLI (issue 43, "no silent loss").

A module summarised for an importer first, in the same run, is linted by reusing the
interpreter that summarised it (:meth:`.driver.index.ProjectIndex.learnt`): only its
reporting pass runs. The copies that summary learnt for other modules' calls (a dict read by
a literal key, :meth:`.interp.constants.Constants.literal_returns`; flag and text variants,
:mod:`.interp.variants`) must leave the state the reporting pass reads as the learning
passes left it, or the module's own "may be" findings vanish when an importer came first.
Each project below is linted file by file alone (the reference), in both orders in one run
(with and without the summaries made first, as ``-j 2`` does before its workers fork), by the
CLI with ``-j 1`` and ``-j 2``, and by flake8 file by file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project.modules import one_run
from tests.project.test_project import _parse, _run

#: A dict read by a parameter, the key a literal in the importer (``literal_returns``).
KEYED = {
    "lanes.py": """\
import torch
from torch_npu.npu import ExternalStream


class Lanes:
    def __init__(self, h):
        self.lanes = {"prefill": torch.npu.Stream(), "decode": ExternalStream(h)}

    def idle(self, kind):
        return self.lanes[kind].query()
""",
    "main.py": """\
from lanes import Lanes


class Sched:
    def __init__(self, h):
        self.streams = Lanes(h)

    def busy(self):
        return self.streams.idle("decode")


def positive(h):
    return Lanes(h).idle("decode")


def negative(h):
    return Lanes(h).idle("prefill")
""",
}

#: A flag and a name the importer passes as literals (``export_variants``), and a helper
#: whose every call in its own module passes a deciding literal.
FLAGS = {
    "comm.py": """\
import torch
import torch_npu


def pick(h, external):
    if external:
        return torch_npu.npu.ExternalStream(h)
    return torch.npu.Stream()


def wait_on(h, external):
    pick(h, external).synchronize()


def by_name(h, kind):
    s = torch_npu.npu.ExternalStream(h) if kind == "hccl" else torch.npu.Stream()
    s.query()


def local(h):
    wait_on(h, False)
""",
    "run.py": """\
from comm import by_name, wait_on


def step(h):
    wait_on(h, True)
    wait_on(h, False)
    by_name(h, "hccl")
    by_name(h, "compute")
""",
}

#: A base's method run for a subclass that makes an external stream (a view, views.py),
#: with a flag and a text the importer passes as literals.
VIEWS = {
    "base.py": """\
import torch
from torch_npu.npu import ExternalStream


class Base:
    def make(self, h):
        return torch.npu.Stream()

    def run(self, h, flag):
        s = self.make(h)
        if flag:
            s.synchronize()

    def go(self, h, kind):
        s = self.make(h)
        if kind == "wait":
            s.query()


class Ext(Base):
    def make(self, h):
        return ExternalStream(h)


def local(h):
    Ext().run(h, False)
""",
    "use.py": """\
from base import Base, Ext


def step(h):
    Ext().run(h, True)
    Base().run(h, True)
    Ext().go(h, "wait")
    Ext().go(h, "skip")
""",
}

PROJECTS = {"keyed": KEYED, "flags": FLAGS, "views": VIEWS}


def _write(root: Path, files: dict[str, str]) -> list[Path]:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return sorted(root / name for name in files)


def _lint(root: Path, order: list[Path], index: ProjectIndex) -> set[tuple[str, int, str]]:
    found = set()
    for path in order:
        text = path.read_text(encoding="utf-8")
        for finding in analyze_source(text, str(path), project=index):
            found.add((path.relative_to(root).as_posix(), finding.line, finding.code))
    return found


def _alone(root: Path, files: list[Path]) -> set[tuple[str, int, str]]:
    """Each file linted in a run of its own (its imports summarised, never linted)."""
    found: set[tuple[str, int, str]] = set()
    for path in files:
        with one_run():
            found |= _lint(root, [path], ProjectIndex())
    return found


@pytest.mark.parametrize("name", sorted(PROJECTS))
@pytest.mark.parametrize("prepared", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_one_run_in_either_order_finds_what_each_file_alone_does(
    tmp_path: Path, name: str, prepared: bool, reverse: bool
) -> None:
    files = _write(tmp_path, PROJECTS[name])
    alone = _alone(tmp_path, files)
    assert alone
    order = files[::-1] if reverse else files
    index = ProjectIndex()
    with one_run():
        if prepared:  # the summaries first, as the CLI makes them before its workers fork
            for path in order:
                index.prepare(str(path))
        assert _lint(tmp_path, order, index) == alone


def test_the_keyed_module_keeps_its_own_may_be(tmp_path: Path) -> None:
    """The reference itself: ``lanes.py`` alone does not know its importers, so its "may
    be" stays at the operation (interp/variants.py); the importer's calls are decided."""
    files = _write(tmp_path, KEYED)
    assert _alone(tmp_path, files) == {
        ("lanes.py", 10, "XST102"),
        ("main.py", 9, "XST102"),
        ("main.py", 13, "XST102"),
    }


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_cli_jobs_and_flake8_file_by_file_agree(tmp_path: Path, name: str) -> None:
    files = _write(tmp_path, PROJECTS[name])
    alone = _alone(tmp_path, files)
    common = ["--isolated", "--no-cache", "--exit-zero"]
    for jobs in ("1", "2"):
        cli = _run(["extstream_lint", *common, "-j", jobs, "."], tmp_path)
        assert _parse(cli) == alone, jobs
    by_file: set[tuple[str, int, str]] = set()
    for path in files:
        out = _run(["flake8", "--isolated", "--select=XST", path.name], tmp_path)
        by_file |= _parse(out)
    assert by_file == alone
