"""A bound that cuts what the analysis follows says where (issue 43, item 9): stacked
wrappers past ``higher_order._MAX_DEPTH`` give an XST000 at the call, as the budget's does."""

from __future__ import annotations

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.interp.higher_order import _MAX_DEPTH

_HEAD = "import torch\nfrom torch_npu.npu import ExternalStream\n\n\n"


def stacked(n: int, stream: str = "ExternalStream(h)") -> str:
    """``n`` wrapper decorators stacked on a function that synchronizes its argument."""
    out = [_HEAD]
    for i in range(n):
        out.append(
            f"def w{i}(fn):\n    def inner(*a, **k):\n        return fn(*a, **k)\n\n"
            "    return inner\n\n\n"
        )
    out.append("".join(f"@w{i}\n" for i in range(n)) + "def sync(s):\n    s.synchronize()\n\n\n")
    out.append(f"def f(h):\n    sync({stream})\n")
    return "".join(out)


def _found(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in analyze_source(text, "m.py")]


def test_wrappers_within_the_bound_are_followed() -> None:
    text = stacked(_MAX_DEPTH)
    assert _found(text) == [(text.count("\n"), "XST101")]


def test_one_more_wrapper_is_said_at_the_call() -> None:
    text = stacked(_MAX_DEPTH + 1)
    found = analyze_source(text, "m.py")
    assert [(f.line, f.code) for f in found] == [(text.count("\n"), "XST000")]
    assert "_MAX_DEPTH" in found[0].message


def test_no_word_where_nothing_is_cut() -> None:
    # no function passed through wrappers: no bound reached, nothing said
    assert _found(_HEAD + "def f(h):\n    torch.npu.Stream().synchronize()\n") == []
