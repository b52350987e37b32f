"""The cost of one file's analysis grows linearly with the file (issue 43, item 8).

Each shape is analysed at n and 10n, and the work counted: every Python and builtin
function call the analysis makes (``sys.setprofile``), plus every binding a program
state copies or scans (:class:`.state.State`), which a profile does not see. Ten times the
file may cost at most twelve times the work. Measured on 7db6651 at these sizes (the
issue's own sizes took minutes):

=================================  ======  ==========  ==========  ======
shape                              n       work(n)     work(10n)   growth
=================================  ======  ==========  ==========  ======
class hierarchy n deep             20      140,240     21,041,551  150x
``b.aN = b.aN-1``                  100     61,297      2,376,997   39x
``list.append`` n times            100     49,867      1,363,867   27x
=================================  ======  ==========  ==========  ======

These fail today (strict xfail): the interpreter's own work is for the next change.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis import state as state_module

HEAD = "import torch\next = torch.npu.ExternalStream(handle)\n"


def hierarchy(n: int) -> str:
    """``C{i}(C{i-1})``, each ``__init__`` calling ``super().__init__()``; the root's
    makes the stream the deepest instance's caller synchronizes."""
    out = [
        HEAD,
        "class C0:\n    def __init__(self):\n        self.s = torch.npu.ExternalStream(1)\n",
    ]
    for i in range(1, n):
        out.append(
            f"class C{i}(C{i - 1}):\n    def __init__(self):\n"
            f"        super().__init__()\n        self.a{i} = {i}\n"
        )
    out.append(f"c = C{n - 1}()\nc.s.synchronize()\n")
    return "".join(out)


def attribute_chain(n: int) -> str:
    """``b.a0 = ext``, then ``b.a{i} = b.a{i-1}``, then ``b.a{n-1}.synchronize()``."""
    out = [HEAD, "class B:\n    pass\n\n\nb = B()\nb.a0 = ext\n"]
    out += [f"b.a{i} = b.a{i - 1}\n" for i in range(1, n)]
    out.append(f"b.a{n - 1}.synchronize()\n")
    return "".join(out)


def appends(n: int) -> str:
    """``items.append(ext)`` n times, then ``items[0].synchronize()``."""
    return HEAD + "items = []\n" + "items.append(ext)\n" * n + "items[0].synchronize()\n"


SHAPES: dict[str, tuple[Callable[[int], str], int]] = {
    "class hierarchy n deep": (hierarchy, 20),
    "b.aN = b.aN-1": (attribute_chain, 100),
    "list.append n times": (appends, 100),
}


@pytest.fixture
def counted_states(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Bindings copied or scanned by program states, added to the count."""
    work = [0]
    copy, forget = state_module.State.copy, state_module.State.forget_paths_under

    def counting_copy(self: state_module.State) -> state_module.State:
        work[0] += len(self.env)
        return copy(self)

    def counting_forget(self: state_module.State, name: str) -> None:
        if self.has_paths:
            work[0] += len(self.env)
        forget(self, name)

    monkeypatch.setattr(state_module.State, "copy", counting_copy)
    monkeypatch.setattr(state_module.State, "forget_paths_under", counting_forget)
    yield work


def _work(source: str, work: list[int]) -> int:
    """The work of analysing ``source``: calls made, and bindings copied or scanned."""
    before = work[0]

    def profile(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            work[0] += 1

    sys.setprofile(profile)
    try:
        findings = analyze_source(source, "<unknown>")
    finally:
        sys.setprofile(None)
    assert [f.code for f in findings] == ["XST101"], findings  # the shape is analysed
    return work[0] - before


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="issue 43 item 8")
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_ten_times_the_file_costs_at_most_twelve_times_the_work(
    shape: str, counted_states: list[int]
) -> None:
    build, n = SHAPES[shape]
    small = _work(build(n), counted_states)
    large = _work(build(10 * n), counted_states)
    assert large <= 12 * small, (
        f"{shape}: {small:,} at n={n}, {large:,} at 10n ({large / small:.0f}x)"
    )
