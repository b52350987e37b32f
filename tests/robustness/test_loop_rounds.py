"""Loops run to a fixed point of their head, at a cost linear in the file (issue 43, item 9).

A value carried round a loop (``a, b, c = b, c, ext``) reaches its use after as many
rounds as names it moves through; nested loops must not multiply their rounds (a previous
attempt cost 3^depth). The work is counted as statement executions (the budget's counter,
:mod:`extstream_lint.analysis.driver.budget`), every pass included; each module ends with a
use the analysis must report, so a shape cannot get cheap by losing it.
"""

from __future__ import annotations

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
from extstream_lint.analysis.interp.loops import LOOP_ROUNDS
from extstream_lint.analysis.source.parsing import parse

_HEAD = "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"


def _codes(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in analyze_source(text, "m.py")]


def _executed(text: str) -> int:
    """Statements the interpreter executes for ``text`` alone, its passes together."""
    module, _ = parse(text)
    interpreter = BudgetedInterpreter(module)
    assert interpreter.run(), "the shape must keep its finding"
    return interpreter.executed


def nested(depth: int) -> str:
    """``depth`` nested loops (for and while in turn), a rotation in the innermost."""
    lines = [_HEAD, "def f(h, xs):\n", "    ext = ExternalStream(h)\n"]
    lines.append("    a = b = c = torch.npu.Stream()\n")
    indent = "    "
    for level in range(depth):
        lines.append(f"{indent}for x{level} in xs:\n" if level % 2 == 0 else f"{indent}while xs:\n")
        indent += "    "
        lines.append(f"{indent}y{level} = x0\n")
    lines.append(f"{indent}a, b, c = b, c, ext\n")
    lines.append("    a.synchronize()\n")
    return "".join(lines)


def sequential(n: int) -> str:
    """``n`` loops one after the other, each carrying a value round, the last one's used."""
    lines = [_HEAD, "def f(h, xs):\n", "    ext = ExternalStream(h)\n"]
    for i in range(n):
        lines.append(f"    a{i} = b{i} = torch.npu.Stream()\n")
        lines.append(f"    for _ in xs:\n        a{i}, b{i} = b{i}, ext\n")
    lines.append(f"    a{n - 1}.synchronize()\n")
    return "".join(lines)


def test_a_value_carried_round_a_loop_reaches_its_use_after_it() -> None:
    text = _HEAD + (
        "def f(h, xs):\n"
        "    ext = ExternalStream(h)\n"
        "    a = b = c = torch.npu.Stream()\n"
        "    for _ in xs:\n"
        "        a, b, c = b, c, ext\n"
        "    a.synchronize()\n"
    )
    assert _codes(text) == [(10, "XST101")]


def test_and_inside_it_in_a_while_loop_and_an_async_for() -> None:
    text = _HEAD + (
        "def f(h, xs):\n"
        "    ext = ExternalStream(h)\n"
        "    a = b = c = torch.npu.Stream()\n"
        "    while xs:\n"
        "        a.query()\n"
        "        a, b, c = b, c, ext\n"
        "\n\n"
        "async def g(h, xs):\n"
        "    ext = ExternalStream(h)\n"
        "    a = b = torch.npu.Stream()\n"
        "    async for _ in xs:\n"
        "        a.synchronize()\n"
        "        a, b = b, ext\n"
    )
    assert _codes(text) == [(9, "XST102"), (17, "XST101")]


def test_an_inner_loop_reaches_its_own_fixed_point_from_each_entry() -> None:
    text = _HEAD + (
        "def f(h, xs):\n"
        "    ext = ExternalStream(h)\n"
        "    for _ in xs:\n"
        "        a = b = torch.npu.Stream()\n"
        "        for _ in xs:\n"
        "            a, b = b, ext\n"
        "        a.synchronize()\n"
    )
    assert _codes(text) == [(11, "XST101")]


def test_managed_streams_carried_round_stay_silent() -> None:
    text = _HEAD + (
        "def f(h, xs):\n"
        "    a = b = c = torch.npu.Stream()\n"
        "    for _ in xs:\n"
        "        for _ in xs:\n"
        "            a, b, c = b, c, torch.cuda.ExternalStream(h)\n"
        "    a.synchronize()\n"
    )
    assert _codes(text) == []


def test_a_loop_past_its_rounds_is_said_where() -> None:
    names = [f"v{i}" for i in range(LOOP_ROUNDS + 2)]
    text = _HEAD + (
        "def f(h, xs):\n"
        "    ext = ExternalStream(h)\n"
        f"    {' = '.join(names)} = torch.npu.Stream()\n"
        "    for _ in xs:\n"
        f"        {', '.join(names)} = {', '.join(names[1:])}, ext\n"
        f"    {names[0]}.synchronize()\n"
    )
    found = analyze_source(text, "m.py")
    said = [f for f in found if f.code == "XST000"]
    assert [f.line for f in said] == [8], found
    assert "LOOP_ROUNDS" in said[0].message


@pytest.mark.parametrize("depth", [2, 4, 8])
def test_nested_loops_cost_linear_in_their_depth(depth: int) -> None:
    """Depth d costs at most d times depth 1, with slack: rounds do not multiply."""
    one, deep = _executed(nested(1)), _executed(nested(depth))
    assert deep <= 3 * depth * one, (depth, one, deep)


def test_sequential_loops_cost_linear_in_their_number() -> None:
    n, ten_n = _executed(sequential(20)), _executed(sequential(200))
    assert ten_n <= 12 * n, (n, ten_n)
