"""One module's analysis is bounded by its size (issue 42): generated modules of 10 KB,
100 KB and 1 MB (the last one ``slow``), counted, not timed.

Work is every Python function call the analysis makes (:mod:`cProfile`'s count, parse
included), per byte of the module and against the calls of libcst's parse of the same text;
memory is :mod:`tracemalloc`'s peak while the analysis runs, per byte (the issue's 50 is out of
reach while CPython's parser runs first: see :data:`_PEAK_PER_BYTE`). Each must stay flat as
the module grows a hundredfold. The module repeats one block (classes with streams, ``with``
regions, helpers, a context manager, loops, ``try``) under fresh names, so every block's
findings are reported: a size cannot get cheap by losing them.
"""

from __future__ import annotations

import ast
import cProfile
import pstats
import tracemalloc

import libcst
import pytest

from extstream_lint.analysis import analyze_source

_HEAD = (
    "import torch\nimport torch_npu\nfrom contextlib import contextmanager\n\n"
    "EXT = torch_npu.npu.ExternalStream(0x10)\n\n\n"
)
_BLOCK = """
class Worker{i}:
    def __init__(self, device, streams=None):
        self.device = device
        self.stream = torch_npu.npu.ExternalStream(0x{i:x})
        self.side = torch.npu.Stream()
        self.items = streams or []

    def run(self, x, flag=False):
        with torch.npu.stream(self.stream):
            y = x.to("npu", non_blocking=True)
            if flag:
                self.side.wait_stream(self.stream)
        for k in range(3):
            y = y + k
        return y

    def close(self):
        self.stream.synchronize()


def helper{i}(worker, values):
    out = []
    for v in values:
        out.append(worker.run(v, flag=len(out) > 2))
    data = {{"a": worker.stream, "b": worker.side}}
    try:
        data["a"].query()
    except RuntimeError as err:
        print(err)
    return out, data


@contextmanager
def scope{i}(s):
    with torch.npu.stream(s):
        yield s


def use{i}():
    w = Worker{i}(0)
    res, d = helper{i}(w, [1, 2, 3])
    with scope{i}(EXT) as s:
        torch.npu.current_stream().synchronize()
    return res if d else None
"""

#: Calls per byte of the 10 KB module (15.4 when written, 17.2 at ec61390, 14.0 since
#: positions are matched without ast.walk), with slack; the larger modules must stay within
#: 1.2 times of the smaller one's rate. On the machine of this stop (2026-12-07, second
#: session) the code of the stop before (55e63e6) measures 16.4 at 10 KB and 16.2 at 100 KB,
#: and each of this stop's merges within 0.1 of it: the count moved with the machine (same
#: Python, same libcst), not with the code, and the bound follows what is measured.
_CALLS_PER_BYTE = 17.5
#: Analysis calls against libcst's parse's calls: 5.3 when written, 5.75 at ec61390, 4.7 (10 KB)
#: and 4.8 (100 KB) after the engine's cuts of issue 42 on the last stop's machine; 5.5 and
#: 5.7 on this one for the same code (55e63e6) as for this stop's. The issue's target, 5, is
#: not met here: the bound holds the figure so that a regression fails. Third session of
#: 2026-12-07: adcf73c 5.48 / 5.65; a config's fields followed into constructors (c723632,
#: one more walk per body that reads streams, and copies of ``__init__`` per literal) 5.76 /
#: 5.95; 4935a28 5.81 / 6.01, with 17.3 / 17.1 calls per byte. Those were against a cold
#: parse; against a warm one (what a worker that ran other tests first measures, and what
#: :func:`measure` now counts) 508fbd0 gives 6.07 / 6.03 alone and 6.10 / 6.11 in the suite.
#: Cheaper per statement (paths.along for a summary's paths on the caller's parameters,
#: kinds by exact type, libcst's children read by one attrgetter per node type): 4.65 at
#: 10 KB and 4.58 at 100 KB (13.3 and 13.0 calls per byte), under the issue's 5; the bound
#: is that with 2% room (rounded up). Fourth session: the evening's semantics (None-ness
#: decided by callers, property setters and ``__set__`` run at assignments, devices named by
#: a callee's parameter, methods returning ``self`` with what they set) took it to 4.79 at
#: 10 KB, and widening recursive returns back to 4.74 (4.74 at 100 KB, 13.5 calls per byte);
#: run alone, a cold process measures up to 0.07 more: the bound is 4.9, under the issue's 5.
_AGAINST_PARSE = 4.9
#: tracemalloc's peak per byte: about 156 when written, which is CPython's own ``ast.parse``
#: of the text (the analysis's first parse) alone; the issue's target is 50. Measured again
#: at 4fcb134 (Python 3.11.7, libcst 1.9.0): 155.5 at 10 KB, 162.5 at 100 KB. Of it, alone:
#: ``ast.parse`` peaks at 156 (70 kept: the tree, which gives the findings' positions),
#: even ``compile`` to bytecode peaks at 105 (the parser's arena), libcst's tree keeps 46
#: (the interpreter's input, alive to the end), and the analysis adds about 50 on top of
#: libcst's tree (the interpreter's state: values, paths, summaries, spread over many
#: modules). So 50 cannot be met while CPython's parser runs first (libcst's native parser
#: crashes the process on deep nesting: :mod:`.parsing`) and libcst's nodes are what the
#: interpreter runs; only a compact lowered form of the module could. The bound holds what
#: is measured, with room. At 1 MB: 158.8 (the analysis then took 489 s under tracemalloc
#: on a loaded machine: the ``slow`` case).
_PEAK_PER_BYTE = 175
#: The same peak when the caller hands CPython's tree over (flake8 does): libcst's tree and
#: the analysis alone, 103 at 10 KB and 98 at 100 KB at 4fcb134.
_PEAK_GIVEN_TREE_PER_BYTE = 115


def module(size: int) -> str:
    """A module of at least ``size`` bytes: the head, then the block under fresh names."""
    out, total, i = [_HEAD], len(_HEAD), 0
    while total < size:
        block = _BLOCK.format(i=i)
        out.append(block)
        total += len(block)
        i += 1
    return "".join(out)


def _calls(run: object) -> tuple[int, object]:
    profile = cProfile.Profile()
    profile.enable()
    try:
        result = run()  # type: ignore[operator]
    finally:
        profile.disable()
    return pstats.Stats(profile).total_calls, result  # type: ignore[attr-defined]


def measure(size: int) -> tuple[float, float, float, int]:
    """Calls per byte, calls against libcst's parse, peak bytes per byte, findings; the
    peak with CPython's tree given is checked here (its bound does not scale with size)."""
    text = module(size)
    # libcst's first parse in a process makes ~1,400 calls of first use that later ones do
    # not: counted cold, the baseline depended on which tests the worker ran before
    libcst.parse_module(text)
    parse, _tree = _calls(lambda: libcst.parse_module(text))
    work, found = _calls(lambda: analyze_source(text, "sized.py"))
    tracemalloc.start()
    try:
        analyze_source(text, "sized.py")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    if size <= 100_000:  # the 1 MB case takes minutes under tracemalloc: measured once
        given = ast.parse(text)
        tracemalloc.start()
        try:
            analyze_source(text, "sized.py", given)
            peak_given = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak_given <= _PEAK_GIVEN_TREE_PER_BYTE * len(text), peak_given / len(text)
    return work / len(text), work / parse, peak / len(text), len(found)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def small() -> tuple[float, float, float, int]:
    analyze_source(_HEAD + "EXT.synchronize()\n", "warm.py")  # first-use memos out of it
    return measure(10_000)


def test_a_10kb_module(small: tuple[float, float, float, int]) -> None:
    per_byte, against_parse, peak, found = small
    assert found >= 40  # every block's findings
    assert per_byte <= _CALLS_PER_BYTE and against_parse <= _AGAINST_PARSE
    assert peak <= _PEAK_PER_BYTE


@pytest.mark.parametrize(
    "size", [100_000, pytest.param(1_000_000, marks=pytest.mark.slow)], ids=["100k", "1m"]
)
def test_a_module_a_hundred_times_larger_costs_as_much_per_byte(
    small: tuple[float, float, float, int], size: int
) -> None:
    per_byte, against_parse, peak, found = measure(size)
    assert found >= small[3] * size // 12_000
    assert per_byte <= 1.2 * small[0] and against_parse <= _AGAINST_PARSE
    assert peak <= 1.2 * small[2] and peak <= _PEAK_PER_BYTE
