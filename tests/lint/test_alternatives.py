"""A name bound to a different callee on each path (issue 27): the join keeps them all.

The spellings (conditional expression, a ``def`` per branch, ``try``/``except ImportError``
imports, a dict of handlers) are conformance cases; these are the edges: the join's
algebra, its bound, a finding only some alternatives reach (a "may"), what a call leaves
current, and the value surviving the cache's pickler.
"""

from __future__ import annotations

import pickle

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.abstract.atoms import Const, Ref
from extstream_lint.analysis.abstract.choices import MAX_OPTIONS, OneOf
from extstream_lint.analysis.abstract.values import FunctionInfo, join, join_all
from extstream_lint.project.safe_pickle import loads


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in analyze_source(source)]


def test_two_functions_join_into_either_in_any_order() -> None:
    a, b, c = FunctionInfo("a"), FunctionInfo("b"), FunctionInfo("c")
    ab = join(a, b)
    assert isinstance(ab, OneOf) and ab.options == (a, b)
    # the same alternatives in the same order, whichever path came first: a summary
    # holding them has one digest, so an import cycle settles
    assert join(b, a) == ab and join(b, a).options == ab.options
    assert join(ab, a) == ab and join(ab, join(b, c)) == join_all([c, b, a])
    assert join(a, None) is None  # an unknown value on one path stays unknown
    assert join(a, Const(None)) is a  # the optional-import idiom is unchanged
    assert join(a, Const(1)) is None  # a function and a number: nothing a call can use


def test_the_join_is_bounded() -> None:
    many = [FunctionInfo(f"f{i}") for i in range(MAX_OPTIONS + 1)]
    assert isinstance(join_all(many[:MAX_OPTIONS]), OneOf)
    assert join_all(many) is None


def test_torch_names_and_functions_join() -> None:
    either = join(Ref("torch.npu.ExternalStream"), FunctionInfo("make"))
    assert isinstance(either, OneOf) and len(either.options) == 2


MAY = """\
import os
from torch_npu.npu import ExternalStream


def sync(s):
    s.synchronize()


def sync_too(s):
    s.synchronize()


def keep(s):
    return s


def some(h):
    f = sync if os.environ.get("A") else keep
    f(ExternalStream(h))


def every(h):
    f = sync if os.environ.get("A") else sync_too
    f(ExternalStream(h))
"""


def test_a_finding_only_some_alternatives_reach_is_a_may() -> None:
    found = {f.line: f for f in analyze_source(MAY)}
    assert set(found) == {19, 24}
    assert "may be" in found[19].message  # keep() does not synchronize
    assert "may be" not in found[24].message  # both do


CURRENT = """\
import os
import torch
from torch_npu.npu import ExternalStream


def enter(s):
    torch.npu.set_stream(s)


def stay(s):
    pass


def run(h):
    f = enter if os.environ.get("A") else stay
    f(ExternalStream(h))
    torch.npu.current_stream().synchronize()


def run_managed():
    f = enter if os.environ.get("A") else stay
    f(torch.npu.Stream())
    torch.npu.current_stream().synchronize()
"""


def test_what_an_alternative_makes_current_is_joined() -> None:
    assert _codes(CURRENT) == [(17, "XST101")]


MODULES = """\
import os
import torch
from torch_npu.npu import ExternalStream


class Fast:
    @staticmethod
    def make(h):
        return ExternalStream(h)


class Slow:
    @staticmethod
    def make(h):
        return torch.npu.Stream()


def pick(h):
    impl = Fast if os.environ.get("A") else Slow
    impl.make(h).query()


def pick_managed(h):
    impl = Slow if os.environ.get("A") else Slow
    impl.make(h).query()
"""


def test_an_attribute_of_either_class_is_either_attribute() -> None:
    assert _codes(MODULES) == [(20, "XST102")]


def test_either_survives_the_cache_pickler() -> None:
    value = OneOf((Ref("fast.make"), Ref("slow.make")))
    assert loads(pickle.dumps(value)) == value
