"""Reflection by literal names costs a bounded number of body runs (issue 38, family 3).

A parameter used as an attribute's name gets a summary copy per string literal a caller
passes (:mod:`extstream_lint.analysis.interp.constants`), at most ``MAX_COPIES`` per pass,
and a loop over a literal tuple of names runs its body once per name only up to eight
names. Counted, not timed.
"""

from __future__ import annotations

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.interp.constants import MAX_COPIES

_HEAD = (
    "from torch_npu.npu import ExternalStream\n\n\n"
    "class Hooks:\n    def sync(self, s):\n        s.synchronize()\n\n\n"
    "def fire(obj, name, s):\n    getattr(obj, name)(s)\n\n\n"
)


def _runs_of(monkeypatch, source: str, name: str) -> tuple[list[str], int]:
    """The codes found in ``source`` and how many times the body of ``name`` was run."""
    from extstream_lint.analysis.interp import interpreter

    runs = [0]
    original = interpreter.Interpreter._run_function

    def counting(self, node, *args, **kwargs):  # type: ignore[no-untyped-def]
        if getattr(getattr(node, "name", None), "value", None) == name:
            runs[0] += 1
        return original(self, node, *args, **kwargs)

    monkeypatch.setattr(interpreter.Interpreter, "_run_function", counting)
    return [f.code for f in analyze_source(source, "m.py")], runs[0]


def test_copies_per_literal_name_are_bounded(monkeypatch) -> None:
    """Many callers, each naming another attribute: the copies stop at ``MAX_COPIES`` per
    pass, and the one naming the refused hook is still reported while under the bound."""
    callers = "".join(
        f"def use{i}(h):\n    fire(Hooks(), 'hook{i}', ExternalStream(h))\n\n\n"
        for i in range(4 * MAX_COPIES)
    )
    source = _HEAD + "def first(h):\n    fire(Hooks(), 'sync', ExternalStream(h))\n\n\n" + callers
    codes, runs = _runs_of(monkeypatch, source, "fire")
    assert codes == ["XST101"]
    passes = 4  # learning passes and the reporting pass, with room to spare
    assert runs <= passes * (MAX_COPIES + 1)


def test_a_loop_over_many_names_is_not_unrolled() -> None:
    """Eight names are run one by one; nine are any one of them, not known: no finding,
    and the bound says where it cut (one XST000 there: driver/cuts.py)."""
    loop = "def use(h):\n    for name in ({}):\n        getattr(Hooks(), name)(ExternalStream(h))\n"
    eight = ", ".join(["'sync'", *(f"'n{i}'" for i in range(7))])
    nine = ", ".join(["'sync'", *(f"'n{i}'" for i in range(8))])
    assert [f.code for f in analyze_source(_HEAD + loop.format(eight), "m.py")] == ["XST101"]
    assert [f.code for f in analyze_source(_HEAD + loop.format(nine), "m.py")] == ["XST000"]


def test_copies_for_names_leave_the_flags_their_copies() -> None:
    """Copies for names have a budget of their own: after many of them, a flag a caller
    passes (``maybe_sync(ext, False)``) still gets its copy, so nothing is reported."""
    callers = "".join(
        f"def use{i}(h):\n    fire(Hooks(), 'hook{i}', ExternalStream(h))\n\n\n"
        for i in range(2 * MAX_COPIES)
    )
    flag = (
        "def maybe_sync(s, enable):\n    if enable:\n        s.synchronize()\n\n\n"
        "def last(h):\n    maybe_sync(ExternalStream(h), False)\n"
    )
    assert [f.code for f in analyze_source(_HEAD + callers + flag, "m.py")] == []


def test_a_loop_over_names_not_used_as_attribute_names_runs_as_any_loop(monkeypatch) -> None:
    """``for key in ("a", "b", ...):`` whose body never names an attribute by ``key`` is an
    ordinary loop: its body runs as often as a loop over any other tuple of eight items
    (unrolling it would multiply the stdlib's many loops over literal names by up to 8)."""
    import libcst as cst

    from extstream_lint.analysis.driver.budget import BudgetedInterpreter as Counted

    body = "def use(d):\n    for key in ({}):\n        d[key] = d.get(key, 0) + 1\n"
    names = ", ".join(f"'k{i}'" for i in range(8))
    numbers = ", ".join(str(i) for i in range(8))
    counts = []
    for items in (names, numbers):
        interpreter = Counted(cst.parse_module(body.format(items)))
        interpreter.run()
        counts.append(interpreter.executed)
    assert counts[0] == counts[1], counts
