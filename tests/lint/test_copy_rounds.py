"""A copy learnt with a caller's literal that calls itself (issue 39: statements on the
overlay tree): no learning pass is run again for it alone.

Counted, not timed. A recursive function whose body tests a parameter, called with a
literal there (gettext's ``_parse(tokens, priority)``, posixpath's ``_joinrealpath``), is
learnt as a copy (:mod:`extstream_lint.analysis.interp.constants`) that applies its own
summary before it is done. Each pass learns its copies afresh, so another pass would read
that blank summary again: once the bodies run callees first and every other summary
applied was final, the passes stop instead of running to the cap of four.
"""

from __future__ import annotations

import libcst as cst

from extstream_lint.analysis.driver.budget import BudgetedInterpreter

_HEAD = """\
import torch
from torch_npu.npu import ExternalStream


"""


def _walker(i: int) -> str:
    return f"""\
def walk{i}(items, h, deep):
    s = ExternalStream(h) if deep else torch.npu.Stream()
    for item in items:
        walk{i}(item, h, True)
    return s


walk{i}([], 1, True)
"""


def _run(n: int) -> tuple[int, int]:
    source = _HEAD + "\n\n".join(_walker(i) for i in range(n))
    interpreter = BudgetedInterpreter(cst.parse_module(source))
    interpreter.run()
    return interpreter._passes, interpreter.executed


def test_a_recursive_copy_stops_the_passes_at_n_and_10n() -> None:
    passes, small = _run(3)
    assert passes == 3  # two learning passes (the second callees first), then the report
    more_passes, large = _run(30)  # (it was five passes: four learning, to the cap)
    assert more_passes == passes
    assert large <= 10 * small  # linear: each body a bounded number of runs per pass
