"""A caller's literal decides the callee (issue 43, item 9): comparisons, ``match``, keys.

Counted, not timed: copies of summaries learnt with literal arguments (each is one more run
of a body) and statement executions. A string literal, or a parameter compared, matched or
used as a key, gets a copy only in a function whose summary reads streams: a helper of
ordinary code called with n and 10n distinct string literals learns no copy at all, while
one that returns a stream it makes learns one per literal, up to ``MAX_COPIES`` per pass.
"""

from __future__ import annotations

import libcst as cst

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.abstract.atoms import Const
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
from extstream_lint.analysis.interp import strings
from extstream_lint.analysis.interp.constants import MAX_COPIES
from extstream_lint.analysis.source.bodies import decided_params

_PLAIN = """\
def pick(kind, table):
    if kind == "a":
        return table[kind]
    match kind.split(":"):
        case ["b", rest]:
            return rest
    return table.get(kind)

"""

_STREAMS = """\
import torch
from torch_npu.npu import ExternalStream


def pick(kind, h):
    if kind == "external":
        return ExternalStream(h)
    return torch.npu.Stream()

"""


def _calls(n: int) -> str:
    return "".join(f'pick("k{i}", None)\n' for i in range(n))


def _run(source: str) -> tuple[int, int]:
    interpreter = BudgetedInterpreter(cst.parse_module(source))
    interpreter.run()
    return interpreter.executed, len(interpreter._specialised)


def test_no_copy_where_no_stream_is_read_at_n_and_10n() -> None:
    small, large = _run(_PLAIN + _calls(10)), _run(_PLAIN + _calls(100))
    assert small[1] == large[1] == 0
    # linear: a call costs its own statement in each pass, never a run of the body
    per_call = (large[0] - small[0]) / 90
    assert per_call <= 4 and large[0] <= 10 * small[0]


def test_a_copy_per_literal_where_the_helper_makes_a_stream_bounded() -> None:
    assert _run(_STREAMS + _calls(10))[1] > 0
    passes_copies = _run(_STREAMS + _calls(10 * MAX_COPIES))[1]
    assert passes_copies <= 4 * MAX_COPIES  # per pass, at most four learning passes + report


def test_decided_params_reads_comparisons_match_keys_and_methods() -> None:
    node = cst.parse_module(_PLAIN).body[0]
    assert isinstance(node, cst.FunctionDef)
    assert decided_params(node) == {"kind"}
    ordinary = cst.parse_module("def f(a, b):\n    return a + b\n").body[0]
    assert isinstance(ordinary, cst.FunctionDef)
    assert decided_params(ordinary) == set()


def test_pure_str_methods_fold_on_literals_only() -> None:
    found = analyze_source(
        _STREAMS.replace('kind == "external"', 'kind.lower().startswith("ext")')
        + "\n\ndef run(h):\n    pick('EXTERNAL', h).synchronize()\n"
        "    pick('Managed', h).synchronize()\n"
    )
    assert [f.line for f in found] == [13]
    assert strings.folds(Const("a:b"), "split")
    assert not strings.folds(Const(""), "split")
