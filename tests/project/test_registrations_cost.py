"""Registrations made in other modules cost linear work (issue 38).

A registration is a fact of the registering module's summary, in force in every module that
imports it, directly or not (:mod:`extstream_lint.analysis.interp.dispatch`): it travels up
the import graph in the summaries, no body is run again for it. Here a chain of n plugin
modules, each importing the one before it, the first registering an implementation that
reaches a refused call: the call in the app that imports the last one is reported, with
one summary and at most one parse per module, for n modules as for 10n, and the
registrations all summaries keep grow with n, not with its square. The same for a store
into another module's dict (``jobs.HANDLERS["comm"] = impl``, :mod:`.interp.registries`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import PARSES, ProjectIndex
from extstream_lint.analysis.interp.dispatch import MAX_REGISTRATIONS, REGISTRATIONS
from extstream_lint.analysis.interp.registries import FOREIGN_STORES
from extstream_lint.project.modules import one_run

_JOBS = """import functools


class CommJob:
    def __init__(self, stream):
        self.stream = stream


@functools.singledispatch
def finish(job):
    return job
"""
_FIRST = """from jobs import CommJob, finish


@finish.register
def _(job: CommJob):
    job.stream.query()
"""
_APP = """from torch_npu.npu import ExternalStream

import p{last}  # noqa: F401
from jobs import CommJob, finish


def run(h):
    finish(CommJob(ExternalStream(h)))
"""


def _project(root: Path, n: int, registering: int = 1) -> None:
    """``jobs`` (the generic function), ``p0`` .. ``p{n-1}`` (each imports the one before;
    the first ``registering`` register an implementation for a class of their own too)."""
    (root / "pyproject.toml").write_text("")
    (root / "jobs.py").write_text(_JOBS)
    (root / "p0.py").write_text(_FIRST)
    for i in range(1, n):
        text = f"import p{i - 1}  # noqa: F401\nfrom jobs import finish\n"
        if i < registering:
            text += f"\n\nclass Job{i}:\n    pass\n\n\n@finish.register\ndef _(job: Job{i}):\n"
            text += "    return job\n"
        (root / f"p{i}.py").write_text(text)
    (root / "app.py").write_text(_APP.format(last=n - 1))


def _lint(root: Path) -> tuple[list[tuple[int, str]], ProjectIndex]:
    index = ProjectIndex()
    PARSES.clear()
    with one_run():
        path = root / "app.py"
        found = analyze_source(path.read_text(), str(path), project=index)
    return [(f.line, f.code) for f in found], index


def _kept(index: ProjectIndex, key: str = REGISTRATIONS) -> int:
    """How many registrations all the run's summaries keep."""
    held = (m.exports.get(key) for m in index._modules.values())
    return sum(len(h.items) for h in held if h is not None)  # type: ignore[attr-defined]


@pytest.mark.parametrize("n", [10, 100])
def test_a_registration_travels_up_an_import_chain_in_linear_work(tmp_path: Path, n: int) -> None:
    _project(tmp_path, n)
    found, index = _lint(tmp_path)
    assert found == [(8, "XST102")]
    assert len(index.analysed) == n + 1  # jobs and each plugin, once
    assert max(PARSES.values()) == 1
    assert _kept(index) == n  # p0's one registration, in each plugin's summary


def test_what_a_summary_keeps_is_bounded(tmp_path: Path) -> None:
    """Every plugin registers: each summary keeps at most MAX_REGISTRATIONS of those in
    force (the first ones, the earliest imported), so the chain's total stays linear."""
    n = 2 * MAX_REGISTRATIONS
    _project(tmp_path, n, registering=n)
    found, index = _lint(tmp_path)
    assert found == [(8, "XST102")]
    assert _kept(index) == sum(min(i + 1, MAX_REGISTRATIONS) for i in range(n))
    assert len(index.analysed) == n + 1


_STORING = """import jobs


def finish_comm(job):
    job.stream.query()


jobs.HANDLERS["comm"] = finish_comm
"""
_LOOKUP = """from torch_npu.npu import ExternalStream

import p{last}  # noqa: F401
from jobs import HANDLERS, CommJob, finish_by


def run(h):
    {call}
"""
_BY_HOME = "\n\nHANDLERS = {}\n\n\ndef finish_by(kind, job):\n    return HANDLERS[kind](job)\n"


@pytest.mark.parametrize(
    "call",
    [
        'HANDLERS["comm"](CommJob(ExternalStream(h)))',
        'finish_by("comm", CommJob(ExternalStream(h)))',
    ],
)
@pytest.mark.parametrize("n", [10, 100])
def test_a_store_into_another_modules_dict_travels_up_in_linear_work(
    tmp_path: Path, n: int, call: str
) -> None:
    """Looked up here, or by a function of the dict's own module (a recorded call)."""
    _project(tmp_path, n)
    (tmp_path / "jobs.py").write_text(_JOBS + _BY_HOME)
    (tmp_path / "p0.py").write_text(_STORING)
    (tmp_path / "app.py").write_text(_LOOKUP.format(last=n - 1, call=call))
    found, index = _lint(tmp_path)
    assert found == [(8, "XST102")]
    assert len(index.analysed) == n + 1
    assert max(PARSES.values()) == 1
    assert _kept(index, FOREIGN_STORES) == n
