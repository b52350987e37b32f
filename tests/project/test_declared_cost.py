"""Declared types cost nothing per caller or per pass, counted on a generated project.

One module defines ``Pool`` (its ``__init__`` makes an ExternalStream); n or 10n modules each
define functions whose parameters are annotated with it (plain, a string, a list of it),
and nothing calls them. Each annotation's syntax is read once (a string annotation parsed
once), whatever the number of learning passes; each module is parsed once; each function's
body runs as often for n annotated functions as for 10n; and every function reports its one
finding, at the operation. Counted (parses, annotation reads, body runs), never timed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import libcst as cst
import pytest

from extstream_lint.analysis.driver import projects
from extstream_lint.analysis.interp import declared
from extstream_lint.analysis.interp.calls import Calls
from extstream_lint.analysis.source import parsing
from extstream_lint.frontends import cli
from extstream_lint.project import sources

_POOLS = """\
from torch_npu.npu import ExternalStream


class Pool:
    def __init__(self, h):
        self.s = ExternalStream(h)
"""

_USER = """\
from gen.pools import Pool


def drain{n}(pool: Pool):
    pool.s.synchronize()


def query{n}(pool: "Pool"):
    return pool.s.query()


def each{n}(pools: "list[Pool]"):
    for pool in pools:
        pool.s.synchronize()
"""

#: Annotations per user module, of which strings, and the lines each module reports.
_ANNOTATIONS, _STRINGS, _LINES = 3, 2, {5, 9, 14}


def _project(root: Path, size: int) -> Path:
    gen = root / "gen"
    gen.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    (gen / "__init__.py").write_text("", encoding="utf-8")
    (gen / "pools.py").write_text(_POOLS, encoding="utf-8")
    for n in range(size):
        (gen / f"user{n:04d}.py").write_text(_USER.format(n=n), encoding="utf-8")
    return root


def _run(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[set[tuple[str, int]], Counter]:
    projects._INDEXES.clear()
    sources._SHARED.clear()
    counts: Counter = Counter()
    runs: Counter = Counter()
    run_function, shape, parse_module, parse_expression = (
        Calls._run_function,
        declared.annotation_shape,
        parsing._parse_module,
        cst.parse_expression,
    )

    def counted_run(self, node, parent, cls, special=None, fixed=None):  # type: ignore[no-untyped-def]
        runs[(self.module_name, node.name.value.rstrip("0123456789"))] += 1
        return run_function(self, node, parent, cls, special, fixed)

    def counted_shape(node, depth=0, parse=declared.parsed_string):  # type: ignore[no-untyped-def]
        counts["shapes"] += depth == 0
        return shape(node, depth, parse)

    def counted_module(text):  # type: ignore[no-untyped-def]
        counts["modules"] += 1
        return parse_module(text)

    def counted_expression(text, *args, **kwargs):  # type: ignore[no-untyped-def]
        counts["expressions"] += 1
        return parse_expression(text, *args, **kwargs)

    monkeypatch.setattr(Calls, "_run_function", counted_run)
    monkeypatch.setattr(declared, "annotation_shape", counted_shape)
    monkeypatch.setattr(parsing, "_parse_module", counted_module)
    monkeypatch.setattr(cst, "parse_expression", counted_expression)
    options = cli.Options(
        (str(root / "gen"),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=1,
        cache=False,
    )
    found = {(Path(i.path).name, i.finding.line) for i in cli.run(options)}
    monkeypatch.undo()
    counts["runs"] = max(runs.values())
    return found, counts


@pytest.mark.parametrize("size", [4])
def test_annotations_are_read_once_and_cost_no_runs_per_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    results = [
        (count, *_run(_project(tmp_path / str(count), count), monkeypatch))
        for count in (size, 10 * size)
    ]
    for count, found, counts in results:
        assert found == {(f"user{n:04d}.py", line) for n in range(count) for line in _LINES}
        assert counts["modules"] <= count + 2  # each file parsed once at most
        assert counts["shapes"] == count * _ANNOTATIONS  # each annotation read once
        assert counts["expressions"] == count * _STRINGS  # each string parsed once
    assert results[0][2]["runs"] == results[1][2]["runs"]  # per function, as often for 10n
