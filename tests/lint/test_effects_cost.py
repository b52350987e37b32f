"""A call's effects on state outside its frame cost no body runs per caller (issue 38).

One generated module: n or 10n helpers each store their parameter into a module-level dict
under a literal key the caller passes, append it to a list, set a ``ContextVar`` and a class
attribute; as many callers each call one helper and read what it stored. Each helper's body
runs as often for n helpers as for 10n (its effects are summary facts applied at each call,
never a run of its body), every caller reports its reads, and no summary keeps more stores
than its bound (:data:`.values.MAX_STORES`). A second module has each caller read what it
stored through a function called later (``return _streams[key]``, ``return _state.stream``):
those reads are resolved per caller without running the readers again. Counted (body runs,
stores), never timed.
"""

from __future__ import annotations

from collections import Counter

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.abstract.values import MAX_STORES, FunctionInfo
from extstream_lint.analysis.interp.calls import Calls

_HEAD = """\
import contextvars

import torch
from torch_npu.npu import ExternalStream

_streams = {}
_pending = []
_active = contextvars.ContextVar("active", default=None)


class Current:
    stream = None
"""

_PAIR = """

def remember{n}(s):
    _streams["k{n}"] = s
    _pending.append(s)
    _active.set(s)
    Current.stream = s


def use{n}(h):
    remember{n}(ExternalStream(h))
    _streams["k{n}"].synchronize()
    _active.get().query()
"""


def _source(count: int) -> str:
    return _HEAD + "".join(_PAIR.format(n=n) for n in range(count))


def _run(count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[set[int], tuple[float, float], int]:
    runs: Counter = Counter()
    stores: list[int] = []
    run_function = Calls._run_function

    def counted(self, node, parent, cls, special=None, fixed=None):  # type: ignore[no-untyped-def]
        runs[node.name.value.rstrip("0123456789")] += 1
        info = special if special is not None else self._functions.get(node)
        result = run_function(self, node, parent, cls, special, fixed)
        if isinstance(info, FunctionInfo):
            stores.append(len(info.summary.stores))
        return result

    monkeypatch.setattr(Calls, "_run_function", counted)
    found = {f.line for f in analyze_source(_source(count), "gen_effects.py", kept=False)}
    monkeypatch.undo()
    return found, (runs["remember"] / count, runs["use"] / count), max(stores)


@pytest.mark.parametrize("size", [5])
def test_effects_are_applied_at_calls_without_running_bodies_again(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    results = []
    for count in (size, 10 * size):
        found, per_function, most = _run(count, monkeypatch)
        lines = _source(count).splitlines()
        reads = {
            i for i, line in enumerate(lines, 1) if line.endswith(("synchronize()", "query()"))
        }
        assert len(reads) == 2 * count
        assert found == reads
        assert most <= MAX_STORES
        results.append(per_function)
    assert results[0] == results[1]  # body runs per function: as many for 10n helpers


_READ_HEAD = """\
import types

import torch
from torch_npu.npu import ExternalStream

_streams = {}
_state = types.SimpleNamespace(stream=None)
"""

_READ_PAIR = """

def remember{n}(key, s):
    _streams[key] = s
    _state.stream = s


def stream{n}(key):
    return _streams[key]


def current{n}():
    return _state.stream


def use{n}(h):
    remember{n}("k{n}", ExternalStream(h))
    stream{n}("k{n}").synchronize()
    current{n}().query()
"""


def _count_runs(source: str, monkeypatch: pytest.MonkeyPatch) -> tuple[set[int], Counter]:
    runs: Counter = Counter()
    run_function = Calls._run_function

    def counted(self, node, parent, cls, special=None, fixed=None):  # type: ignore[no-untyped-def]
        runs[node.name.value.rstrip("0123456789")] += 1
        return run_function(self, node, parent, cls, special, fixed)

    monkeypatch.setattr(Calls, "_run_function", counted)
    found = {f.line for f in analyze_source(source, "gen_reads.py", kept=False)}
    monkeypatch.undo()
    return found, runs


@pytest.mark.parametrize("size", [5])
def test_global_reads_resolve_per_caller_without_running_bodies_again(
    monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """A summarised body's read of a global (``return _streams[key]``) is resolved in each
    caller's view (:mod:`.interp.globalreads`): the reader's body runs as often for n
    callers as for 10n, and every caller reports what it stored."""
    results = []
    for count in (size, 10 * size):
        source = _READ_HEAD + "".join(_READ_PAIR.format(n=n) for n in range(count))
        found, runs = _count_runs(source, monkeypatch)
        lines = source.splitlines()
        reads = {
            i for i, line in enumerate(lines, 1) if line.endswith(("synchronize()", "query()"))
        }
        assert len(reads) == 2 * count
        assert found == reads
        results.append({name: runs[name] / count for name in ("stream", "current", "use")})
    assert results[0] == results[1]  # body runs per function: as many for 10n callers
