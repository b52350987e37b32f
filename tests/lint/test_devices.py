"""Device indices and the per-device current stream (issue 28, part 2).

The golden cases (``tests/lint_cases/hazards_devices.py``) hold the rule end to end; these
hold the two pieces it rests on: how two indices compare, and how the devices an external
stream may be on join where paths meet (and so what the current stream knows after a join).
"""

from __future__ import annotations

import libcst as cst
import pytest

from extstream_lint.analysis.abstract.atoms import ExtStream
from extstream_lint.analysis.abstract.values import Current, join, join_current
from extstream_lint.analysis.semantics.devices import DIFFERENT, SAME, UNSURE, Sym, compare, symbol


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        (0, 0, SAME),
        (0, 1, DIFFERENT),
        (None, 1, UNSURE),
        (Sym("device"), Sym("device"), SAME),
        (Sym("device"), Sym("device", 1), DIFFERENT),
        (Sym("device", -1), Sym("device", 2), DIFFERENT),
        (Sym("devs[i]"), Sym("devs[j]"), UNSURE),
        (Sym("device"), 0, UNSURE),
        (Sym("device"), None, UNSURE),
    ],
)
def test_compare(a: object, b: object, want: str) -> None:
    assert compare(a, b) == want
    assert compare(b, a) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("device", Sym("device")),
        ("device + 1", Sym("device", 1)),
        ("device - 2", Sym("device", -2)),
        ("self.devices[i]", Sym("self.devices[i]")),
        ("self.devices[0] + 1", Sym("self.devices[0]", 1)),
        ("device * 2", None),
        ("f(device)", None),
        ("devs[i + 1]", None),
    ],
)
def test_symbol(text: str, want: Sym | None) -> None:
    assert symbol(cst.parse_expression(text)) == want


def _ext(device: frozenset[object] | None, must: bool = True) -> ExtStream:
    return ExtStream(must, "created", None, device=device)


def test_devices_join_as_the_union_of_known_sets() -> None:
    one, two = _ext(frozenset({1})), _ext(frozenset({2}))
    joined = join(one, two)
    assert isinstance(joined, ExtStream) and joined.must
    assert joined.device == frozenset({1, 2})
    assert join(one, _ext(None)).device is None  # not visible on one path: not visible
    assert join(one, one).device == frozenset({1})


def test_current_stream_keeps_its_device_through_joins() -> None:
    link = Current(_ext(frozenset({1})), "link", None)
    far = Current(_ext(frozenset({2})), "far", None)
    both = join_current(link, far)
    assert both is not None and both.stream.device == frozenset({1, 2}) and both.stream.must
    some = join_current(link, None)  # external on npu:1 on one path, nothing on the other
    assert some is not None and some.stream.device == frozenset({1}) and not some.stream.must


def test_symbolic_indices_are_cache_data() -> None:
    """Summaries holding a symbolic device (``self.device = torch.device("npu", rank)``) are
    kept in ``.extstream_cache/``: the safe unpickler must accept them."""
    import pickle

    from extstream_lint.analysis.abstract.atoms import Const
    from extstream_lint.analysis.abstract.values import Tensor
    from extstream_lint.project.safe_pickle import loads

    kept = (Tensor("npu", Sym("rank", 1)), Const(("npu", Sym("rank"))), _ext(frozenset({Sym("d")})))
    assert loads(pickle.dumps(kept)) == kept
