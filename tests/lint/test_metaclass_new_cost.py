"""A metaclass's ``__new__`` is learnt once per class it creates, not once per class per
learning pass, when its body stores nothing (issue 38's cost clause: enum's ``EnumType``
on the overlay tree).

Counted, not timed. ``class C(metaclass=M)`` learns a copy of ``M.__new__`` with C's
name, bases and namespace, for what it stores in registries
(:meth:`extstream_lint.analysis.interp.registries.Registries.run_metaclass_new`). The
copy's only effect is those stores, and it can store only where the body, learnt with
its parameters unknown, stores too: once that generic summary has none, the later
passes make no copy. A metaclass that registers keeps its copy per class in each pass.
"""

from __future__ import annotations

import libcst as cst

from extstream_lint.analysis.driver.budget import BudgetedInterpreter

_HEAD = """\
import torch
from torch_npu.npu import ExternalStream

REGISTRY = {}


def use(h):
    return later(h)  # learnt after: a second learning pass


def later(h):
    return ExternalStream(h)


class Meta(type):
    def __new__(mcs, name, bases, namespace):
        cls = super().__new__(mcs, name, bases, namespace)
        if bases:
            {store}
        return cls

"""


def _run(n: int, store: str) -> tuple[int, int]:
    classes = "\n\n".join(f"class C{i}(metaclass=Meta):\n    kind = {i}\n" for i in range(n))
    interpreter = BudgetedInterpreter(cst.parse_module(_HEAD.replace("{store}", store) + classes))
    interpreter.run()
    made = [k for k in interpreter._specialised if k[2][0] == "<created>"]
    return interpreter._passes - 1, len(made)  # learning passes (the last one reports)


def test_a_metaclass_that_stores_nothing_is_learnt_once_per_class() -> None:
    for n in (3, 30):
        learning, copies = _run(n, "cls.tag = name")
        assert learning >= 2
        assert copies == n  # the first pass's; it was n per learning pass


def test_a_metaclass_that_registers_is_learnt_per_class_in_each_pass() -> None:
    learning, copies = _run(3, "REGISTRY[name] = cls")
    assert learning >= 2
    assert copies == 3 * learning
