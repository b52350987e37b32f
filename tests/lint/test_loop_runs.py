"""Loops run their body again only while it carries a stream somewhere new (issue 43, item 9).

Counted, not timed: statement executions (:class:`BudgetedInterpreter`'s count). A module
without streams runs each loop body exactly as many times as one silenced run and one
reporting run did before loops were iterated (the figures below are those of that code),
at n and 10n loops and with loops nested three deep; a rotation of k names takes k runs
per pass, up to the cap (:data:`loops.MAX_RUNS`, listed in docs/limitations.md).
"""

from __future__ import annotations

import libcst as cst

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
from extstream_lint.analysis.interp import loops


def _executed(source: str) -> int:
    interpreter = BudgetedInterpreter(cst.parse_module(source))
    interpreter.run()
    return interpreter.executed


def flat(n: int) -> str:
    """``n`` module-level loops with a counter, a growing list and a string built."""
    out = ["total = 0\nitems = []\n"]
    for i in range(n):
        out.append(
            f"for i{i} in range(3):\n    total += i{i}\n    items.append(i{i})\n"
            "    name = 'x' + str(total)\n"
        )
    return "".join(out)


def nested(n: int) -> str:
    """A function with ``n`` loops nested three deep over its parameter's elements."""
    out = ["def work(rows):\n    total = 0\n"]
    for _ in range(n):
        out.append(
            "    for a in rows:\n        for b in a:\n            while b:\n"
            "                total += b\n                b = b - 1\n"
        )
    out.append("    return total\n\n\nwork([[3]])\n")
    return "".join(out)


def test_stream_free_loops_run_as_often_as_before_and_linearly() -> None:
    # Figures of the code before loops were iterated (one silenced run, one reporting run).
    assert [_executed(flat(n)) for n in (10, 100)] == [114, 1104]
    assert [_executed(nested(n)) for n in (10, 100)] == [252, 2412]


def _rotation(k: int) -> str:
    names = [f"a{i}" for i in range(k)]
    return (
        "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"
        "def run(h):\n"
        f"    {' = '.join(names)} = torch.npu.Stream()\n"
        "    for _ in range(10):\n"
        f"        {', '.join(names)} = {', '.join([*names[1:], 'ExternalStream(h)'])}\n"
        "    a0.synchronize()\n"
    )


def test_a_rotation_is_followed_up_to_the_cap_and_no_further() -> None:
    # MAX_RUNS silenced runs, then the reporting run: MAX_RUNS + 1 names
    for k in range(1, loops.MAX_RUNS + 2):
        assert [f.code for f in analyze_source(_rotation(k))] == ["XST101"], k
    # more: cut, and said there (docs/limitations.md lists the bound; driver/cuts.py)
    (said,) = analyze_source(_rotation(loops.MAX_RUNS + 2))
    assert said.code == "XST000" and said.line == 7 and "MAX_RUNS = " in said.message


def test_a_rotation_costs_one_run_per_name_per_pass() -> None:
    """One more run in the learning pass and one in the reporting pass's silenced runs per
    name, up to the cap; then no more whatever the names."""
    base = _executed(_rotation(1))
    assert [_executed(_rotation(k)) - base for k in (2, 3, 4)] == [2, 4, 6]
    capped = _executed(_rotation(loops.MAX_RUNS))
    assert _executed(_rotation(loops.MAX_RUNS + 4)) == capped


def test_carried_names_are_those_read_before_they_are_assigned() -> None:
    body = cst.parse_statement(
        "for x in xs:\n    y = f(x)\n    g(y)\n    total += x\n    if c:\n        z = 1\n"
        "    use(z)\n    q.append(x)\n    self.a, self.b = self.b, x\n    d[k] = x\n"
        "    seen[x] = seen[x] + 1\n"
    )
    assert isinstance(body, cst.For)
    keys, bound = loops.carried(body.target, None, body.body)
    # ``q`` and ``d`` are only filled: the next run stores the same ``x`` (they still bound
    # the runs); ``seen`` is read
    assert keys == {"total", "z", "self.b", "seen"} and bound == 7


def _nest(depth: int) -> str:
    """``depth`` loops nested, each rotating three names of its own round a stream."""
    out = ["import torch\nfrom torch_npu.npu import ExternalStream\n\n\ndef run(h):\n"]
    for level in range(depth):
        pad = "    " * (level + 1)
        a, b, c = (f"{name}{level}" for name in "abc")
        out.append(f"{pad}{a} = {b} = {c} = torch.npu.Stream()\n")
        out.append(f"{pad}for _ in range(3):\n")
        out.append(f"{pad}    {a}, {b}, {c} = {b}, {c}, ExternalStream(h)\n")
    out.append("    a0.synchronize()\n")
    return "".join(out)


def test_nested_rotations_cost_a_polynomial_of_the_depth() -> None:
    """A loop run again inside another loop's further run runs once: without that, each
    level's runs multiply (up to MAX_RUNS ** depth)."""
    assert [f.code for f in analyze_source(_nest(3))] == ["XST101"]
    costs = [_executed(_nest(depth)) for depth in (2, 4, 8)]
    # twice as deep, at most 8 times the work: at most cubic in the depth
    assert costs[1] <= 8 * costs[0] and costs[2] <= 8 * costs[1], costs


_WALK = """
def join(a, *p):
    return a + p[0]


def walk(path, rest, sep):
    while rest:
        name, _, rest = rest.partition(sep)
        if not name:
            continue
        path = join(path, name)
    return path


walk("", "a/b", "/")
"""


def test_a_loop_walking_its_parameter_is_not_run_to_the_bound(monkeypatch) -> None:
    """posixpath's ``_joinrealpath``: each run keeps one more call on the parameter
    (``rest.partition(sep)``) and reads a longer path of it; both are widened in the loop's
    view (the parameter and its first step), so the walk settles after one repeat, as with
    the cap at two runs. Before the widening it ran to its bound (58 statements against
    46), and posixpath's loops 48% more statements in all."""
    from extstream_lint.analysis.interp import statements

    walked = _executed(_WALK)
    monkeypatch.setattr(statements, "MAX_RUNS", 2)
    assert walked == _executed(_WALK), walked


def _filling(n: int, statement: str) -> str:
    """A function with ``n`` loops, each filling a list of its own from its parameter."""
    out = ["def work(rows):\n"]
    for i in range(n):
        out.append(f"    out{i} = []\n    for x in rows:\n        {statement.format(i=i)}\n")
    out.append(f"    return out{n - 1}\n\n\nwork([])\n")
    return "".join(out)


def test_a_list_a_loop_only_fills_is_not_carried_round() -> None:
    """``out.append(x.stream)`` of a parameter's element changes the list's stream view
    (nothing, then the parameter's streams) but nothing in the body reads it: each loop runs
    as often as one that only passes the value on (one learning run, one silenced and one
    reporting run), at n and 10n loops. Running such bodies again was 3/4 of the cost the
    loop fixed point added on the standard library (benchmarks/count_calls.py)."""
    for n in (10, 100):
        filled = _executed(_filling(n, "out{i}.append(x.stream)"))
        passed = _executed(_filling(n, "print(x.stream)"))
        assert filled == passed, n
    # a list the body also reads is carried: ``out.append(out[0])`` runs again
    read = _executed(_filling(10, "out{i}.append(x.stream or out{i}[0])"))
    assert read > _executed(_filling(10, "out{i}.append(x.stream)"))


_BRANCHING_WALK = """
def walk(e):
    x = e.cause
    while x is not None:
        x = x.cause if x.flag else x.context
    return x


walk(None)
"""


def test_a_walk_whose_paths_branch_settles_after_one_run(monkeypatch) -> None:
    """traceback's ``TracebackException.__init__`` queue: a value that may be several paths
    of a parameter is viewed as the set of their widened forms (parameter and first step).
    ``e.cause`` joined with ``e.cause.cause`` and ``e.cause.context`` is the widened set
    ``{cause}`` still, so the loop settles after its first run, as with the cap at one run.
    While the first path was viewed apart from the others, the second run was taken for
    news (22 statements against 19), and traceback's queue, whose body builds three
    ``TracebackException``s, cost 3.5M of the 31.6M calls on the stdlib overlay."""
    from extstream_lint.analysis.interp import statements

    walked = _executed(_BRANCHING_WALK)
    monkeypatch.setattr(statements, "MAX_RUNS", 1)
    assert walked == _executed(_BRANCHING_WALK) == 19, walked


def test_a_parameter_value_is_viewed_as_its_set_of_widened_paths() -> None:
    from extstream_lint.analysis.abstract.atoms import ExtStream, ParamRef

    owner = object()

    def value(*paths: tuple[str, ...]) -> ExtStream:
        refs = [ParamRef(owner, 1, path) for path in paths]
        return ExtStream(True, "passed", None, param=refs[0], also=tuple(refs[1:]))

    head = value(("cause",), ("context",))
    grown = value(("cause",), ("context",), ("cause", "cause"), ("context", "exceptions"))
    assert loops.stream_view(head) == loops.stream_view(grown)
    # another first step, or another parameter, is news
    assert loops.stream_view(head) != loops.stream_view(value(("cause",), ("exceptions",)))
    assert loops.stream_view(value(("cause",))) != loops.stream_view(head)
