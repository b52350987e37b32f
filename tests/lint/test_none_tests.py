"""Which parameters a body tests for None-ness (:func:`.bodies.tested_params`, ``"?p"``):
an ``or``/``and`` whose other operand holds no stream decides nothing the rules read, so a
caller's ``None`` there gets no copy of the summary (the ``streams or []`` default of every
``__init__`` copied each one: issue 42's per-module bound)."""

from __future__ import annotations

import libcst as cst
import pytest

from extstream_lint.analysis.source import bodies


def _tested(body: str) -> frozenset[str]:
    (node,) = cst.parse_module(f"def f(self, stream=None):\n    {body}\n").body
    assert isinstance(node, cst.FunctionDef)
    return bodies.tested_params(node)


@pytest.mark.parametrize(
    "body",
    [
        "s = stream or torch.npu.current_stream()",
        "s = stream or self.default",
        "s = stream and stream.query()",
        "s = stream or [EXT]",
        "s = self.default if isinstance(stream, type(None)) else stream",
    ],
)
def test_a_test_that_may_pick_a_stream_is_recorded(body: str) -> None:
    assert "?stream" in _tested(body)


@pytest.mark.parametrize(
    "body",
    [
        "s = stream or []",
        "s = stream or {}",
        "s = stream or ()",
        "s = stream or 0",
        "s = stream or None",
    ],
)
def test_a_test_that_picks_no_stream_is_not(body: str) -> None:
    assert "?stream" not in _tested(body)
