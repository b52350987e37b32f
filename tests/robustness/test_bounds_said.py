"""Where a bound must cut, the run says so (issue 43, item 9).

Each bound is generated just under it (the finding, and no word of the bound) and just over
it (one XST000 at the cut naming the bound, its value and docs/limitations.md); the same
code over the bound with a managed stream where the external one was says nothing at all,
so that code without a stream never gets a note. The bounds and what they say are in
:mod:`extstream_lint.analysis.driver.cuts`; docs/limitations.md lists them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver import cuts
from extstream_lint.analysis.interp import higher_order, loops, statements

_HEAD = "import torch\nimport torch_npu\n\next = torch_npu.npu.ExternalStream(0x10)\n\n"
_MANAGED = "torch.npu.Stream()"


def wrappers(k: int, stream: str = "ext") -> str:
    """``k`` wrapper decorators stacked on a function that synchronizes its argument."""
    out = [_HEAD]
    for i in range(k):
        out.append(
            f"def w{i}(fn):\n    def inner(*a):\n        return fn(*a)\n    return inner\n\n"
        )
    out.append("".join(f"@w{i}\n" for i in range(k)) + "def use(s):\n    s.synchronize()\n\n")
    out.append(f"use({stream})\n")
    return "".join(out)


def names(k: int, stream: str = "ext") -> str:
    """A loop over ``k`` literal attribute names, the last of which holds ``stream``."""
    out = [_HEAD, "class Cfg:\n    pass\n\n\ncfg = Cfg()\n"]
    out += [f"cfg.a{i} = torch.npu.Stream()\n" for i in range(k - 1)]
    out.append(f"cfg.a{k - 1} = {stream}\n")
    listed = ", ".join(f'"a{i}"' for i in range(k))
    out.append(f"for name in ({listed}):\n    getattr(cfg, name).synchronize()\n")
    return "".join(out)


def rotation(k: int, stream: str = "ExternalStream(h)") -> str:
    """``k`` names rotated round a loop, ``stream`` entering at the last (tests/lint's)."""
    rotated = [f"a{i}" for i in range(k)]
    return (
        "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
        "def run(h):\n"
        f"    {' = '.join(rotated)} = torch.npu.Stream()\n"
        "    for _ in range(10):\n"
        f"        {', '.join(rotated)} = {', '.join([*rotated[1:], stream])}\n"
        "    a0.synchronize()\n"
    )


#: bound -> (generator of k, the largest k followed in full, the managed spelling)
BOUNDS: dict[str, tuple[Callable[..., str], int, str]] = {
    "higher_order._MAX_DEPTH": (wrappers, higher_order._MAX_DEPTH, _MANAGED),
    "statements._MAX_NAMES": (names, statements._MAX_NAMES, _MANAGED),
    # MAX_RUNS silenced runs, then the reporting run: MAX_RUNS + 1 names are followed
    "loops.MAX_RUNS": (rotation, loops.MAX_RUNS + 1, _MANAGED),
}


def _codes(text: str) -> list[str]:
    return [f.code for f in analyze_source(text, "bound.py")]


@pytest.mark.parametrize("bound", sorted(BOUNDS))
def test_just_under_the_bound_finds_and_says_nothing(bound: str) -> None:
    make, last, _ = BOUNDS[bound]
    assert _codes(make(last)) == ["XST101"]


@pytest.mark.parametrize("bound", sorted(BOUNDS))
def test_just_over_the_bound_says_where_it_cut(bound: str) -> None:
    make, last, _ = BOUNDS[bound]
    text = make(last + 1)
    found = [f for f in analyze_source(text, "bound.py") if f.code == "XST000"]
    assert len(found) == 1, found
    where, name, value = cuts._BOUNDS[bound][:3]
    message = found[0].message
    assert f"{where}, {name} = {value}" in message and "docs/limitations.md" in message
    assert found[0].line > 1  # at the cut, not on line 1
    # the note is where the cut is: a line of the construct
    assert text.splitlines()[found[0].line - 1].strip()


@pytest.mark.parametrize("bound", sorted(BOUNDS))
def test_no_stream_no_note(bound: str) -> None:
    make, last, managed = BOUNDS[bound]
    assert _codes(make(last + 1, managed)) == []


def test_every_bound_said_is_in_the_limitations_page() -> None:
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "limitations.md").read_text()
    for where, name, _, _, _ in cuts._BOUNDS.values():
        assert f"`{where}`, `{name}`" in page, where


#: Ordinary code past two bounds in a file that imports ``ExternalStream`` and uses no stream:
#: a class whose attributes are functions and methods (optparse's ``TYPE_CHECKER``, pydoc's
#: formatter classes) is read on each path, and none of it is a stream.
_PLAIN_PAST_BOUNDS = (
    "from torch_npu.npu import ExternalStream\n\n\n"
    "def check_int(option, value):\n    return int(value)\n\n\n"
    "def check_str(option, value):\n    return value\n\n\n"
    "class Option:\n"
    "    ATTRS = [" + ", ".join(f'"a{i}"' for i in range(12)) + "]\n"
    '    TYPE_CHECKER = {"int": check_int, "str": check_str}\n\n'
    "    def check(self, kind, value):\n"
    "        return self.TYPE_CHECKER[kind](self, value)\n\n"
    "    def set_attrs(self, attrs):\n"
    "        for attr in self.ATTRS:\n"
    "            setattr(self, attr, attrs.get(attr))\n\n\n"
    + "".join(
        f"def w{i}(fn):\n    def inner(*a):\n        return fn(*a)\n    return inner\n\n\n"
        for i in range(6)
    )
    + "".join(f"@w{i}\n" for i in range(6))
    + "def show(option):\n    return option.check('int', '1')\n\n\n"
    "show(Option())\n"
)


def test_ordinary_code_past_the_bounds_gets_no_note() -> None:
    """A choice of functions and a method bound to its class are not streams (stdlib's
    optparse and pydoc with the import prepended had a note each)."""
    assert analyze_source(_PLAIN_PAST_BOUNDS, "plain.py") == []
