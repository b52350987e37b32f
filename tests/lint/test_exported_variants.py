"""Copies a module exports with its functions for other modules' callers (interp/variants.py).

Counted, not timed: a module learns its exported copies once, when its summary is made, at
most ``MAX_VARIANTS`` per function and ``MAX_COPIES`` per module, and only for functions
whose summary reads streams; a caller in another module picks one and runs no body.
"""

from __future__ import annotations

import libcst as cst

from extstream_lint.analysis.abstract.values import ClassInfo, FunctionInfo
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
from extstream_lint.analysis.interp.constants import MAX_COPIES
from extstream_lint.analysis.interp.variants import _MAX_CALLED, MAX_VARIANTS

_HEAD = """\
import enum
from dataclasses import dataclass

import torch
from torch_npu.npu import ExternalStream


class Kind(enum.Enum):
    MANAGED = "managed"
    EXTERNAL = "external"


@dataclass
class Cfg:
    kind: Kind = Kind.MANAGED
    handle: int = 0

"""

_STREAMS = """
def pick{i}(h, external):
    if external:
        return ExternalStream(h)
    return torch.npu.Stream()


def make{i}(cfg: Cfg):
    if cfg.kind is Kind.EXTERNAL:
        return ExternalStream(cfg.handle)
    return torch.npu.Stream()

"""

_PLAIN = """
def plain{i}(x, flag):
    if flag:
        return x + 1
    return x

"""


def _summarise(source: str) -> dict[str, object]:
    return BudgetedInterpreter(cst.parse_module(source)).summarise()


def _keys(info: object) -> list[tuple[int, tuple[str, ...], str]]:
    assert isinstance(info, FunctionInfo)
    return [key for key, _ in info.variants]


def test_flag_and_enum_field_copies_are_exported() -> None:
    names = _summarise(_HEAD + _STREAMS.format(i=0))
    assert _keys(names["pick0"])[:2] == [
        (1, (), "Const(value=True)"),
        (1, (), "Const(value=False)"),
    ]
    assert [k for k in _keys(names["make0"]) if k[1]] == [
        (0, ("kind",), "Const(value=<Kind.MANAGED>)"),
        (0, ("kind",), "Const(value=<Kind.EXTERNAL>)"),
    ]
    assert all(len(_keys(names[n])) <= MAX_VARIANTS for n in ("pick0", "make0"))


def test_no_copy_for_a_function_that_reads_no_stream() -> None:
    names = _summarise(_HEAD + _PLAIN.format(i=0))
    assert _keys(names["plain0"]) == []
    assert isinstance(names["Cfg"], ClassInfo)


def test_copies_per_module_are_bounded_at_n_and_10n() -> None:
    small = _summarise(_HEAD + "".join(_STREAMS.format(i=i) for i in range(2)))
    large = _summarise(_HEAD + "".join(_STREAMS.format(i=i) for i in range(20)))
    count = lambda names: sum(  # noqa: E731
        len(v.variants) for v in names.values() if isinstance(v, FunctionInfo)
    )
    assert 0 < count(small) <= count(large) <= MAX_COPIES


_NESTED = """
@dataclass
class Run:
    steps: int = 1
    place: Cfg = field(default_factory=Cfg)


def side(p):
    if p.kind is Kind.EXTERNAL:
        return ExternalStream(p.handle)
    return torch.npu.Stream()


class Lanes:
    def __init__(self, p):
        self.side = side(p)


class Runner:
    def __init__(self, run: Run):
        self.lanes = Lanes(run.place)
{methods}
"""

_CHAINED = """
    def m{i}(self):
        self.m{j}()
"""


def _nested(n: int) -> dict[str, object]:
    methods = "".join(_CHAINED.format(i=i, j=i + 1) for i in range(n))
    methods += f"\n    def m{n}(self):\n        self.lanes.side.synchronize()\n"
    source = _HEAD.replace("import dataclass", "import dataclass, field") + _NESTED
    return _summarise(source.format(methods=methods))


def test_two_step_config_path_copies_are_exported() -> None:
    runner = _nested(1)["Runner"]
    assert isinstance(runner, ClassInfo)
    assert [k for k in _keys(runner.methods["__init__"]) if len(k[1]) == 2] == [
        (1, ("place", "kind"), "Const(value=<Kind.MANAGED>)"),
        (1, ("place", "kind"), "Const(value=<Kind.EXTERNAL>)"),
    ]


def test_pin_copies_reach_a_nested_holder_through_self_calls_within_the_bound() -> None:
    """``m0`` reaches ``self.lanes.side`` through ``self.m1()``; a chain longer than
    ``_MAX_CALLED`` methods is cut (no copies for its head), so the walk stays bounded."""
    short = _nested(2)["Runner"]
    assert isinstance(short, ClassInfo)
    assert _keys(short.methods["m0"]) == [
        (0, ("lanes", "side"), "pin:external"),
        (0, ("lanes", "side"), "pin:none"),
    ]
    long = _nested(_MAX_CALLED + 4)["Runner"]
    assert isinstance(long, ClassInfo)
    assert _keys(long.methods["m0"]) == []
    assert _keys(long.methods[f"m{_MAX_CALLED}"])


def test_receiver_attribute_literal_copies_are_exported() -> None:
    source = _HEAD + (
        "\nclass Feeder:\n"
        "    def __init__(self, h, kind=Kind.MANAGED):\n"
        "        self.h = h\n        self.kind = kind\n\n"
        "    def lane(self):\n"
        "        if self.kind is Kind.EXTERNAL:\n            return ExternalStream(self.h)\n"
        "        return torch.npu.Stream()\n"
    )
    feeder = _summarise(source)["Feeder"]
    assert isinstance(feeder, ClassInfo)
    assert _keys(feeder.methods["lane"]) == [
        (0, ("kind",), "Const(value=<Kind.MANAGED>)"),
        (0, ("kind",), "Const(value=<Kind.EXTERNAL>)"),
    ]
