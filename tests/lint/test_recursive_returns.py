"""A recursive function whose return grows along a parameter's path from pass to pass
(issue 38: inspect's ``_signature_from_callable`` through ``functools.partial`` ran the
learning passes to the cap): the path is widened, and the passes stop.

Counted, not timed. ``unwrap(f)`` returns ``f``, then ``f.__wrapped__``, then one more step
in each pass: the learning passes ran to the cap of four, and every importer's lint with
them. Cut to "any value reached from ``f``" (:mod:`extstream_lint.analysis.abstract.widening`)
the second pass's return is the third's.
"""

from __future__ import annotations

import libcst as cst

from extstream_lint.analysis.abstract.atoms import REACHED
from extstream_lint.analysis.driver.budget import BudgetedInterpreter

_HEAD = """\
import torch
from torch_npu.npu import ExternalStream


"""

_SELF = """\
def unwrap{i}(f):
    if hasattr(f, "__wrapped__"):
        return unwrap{i}(f.__wrapped__)
    if hasattr(f, "__func__"):
        return unwrap{i}(f.__func__)
    return f
"""

# the recursion on the parameter's attribute: each pass puts one more step before the path
_INNER = """\
def signature{i}(obj):
    if hasattr(obj, "__func__"):
        return signature{i}(obj.__func__)
    return obj.__signature__
"""


def _run(template: str, n: int) -> tuple[int, int, BudgetedInterpreter]:
    source = _HEAD + "\n\n".join(template.format(i=i) for i in range(n))
    interpreter = BudgetedInterpreter(cst.parse_module(source))
    interpreter.run()
    return interpreter._passes, interpreter.executed, interpreter


def test_a_self_recursive_unwrap_settles_in_three_learning_passes() -> None:
    passes, small, interpreter = _run(_SELF, 1)
    assert passes == 4  # three learning passes, then the report (it was the cap: five)
    (info,) = interpreter._functions.values()
    assert [ref.path for ref in info.returns.refs()] == [(REACHED,)]
    more_passes, large, _ = _run(_SELF, 30)
    assert more_passes == passes
    assert large <= 30 * small


def test_a_recursion_on_the_parameters_attribute_settles() -> None:
    passes, _, interpreter = _run(_INNER, 1)
    assert passes == 4
    (info,) = interpreter._functions.values()
    paths = {ref.path for ref in info.returns.refs()}
    assert paths == {("__signature__",), ("__func__", REACHED)}
