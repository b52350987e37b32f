"""The compiled wrappers' cheap pre-filter never lets an external id through."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from extstream_guard import ExternalStreamError, _state
from extstream_guard.patches import POINTS
from extstream_guard.predicate import EXTERNAL_MARK, PRIVATEUSE1
from extstream_guard.wrappers import make_wrapper

SYNCHRONIZE = next(p for p in POINTS if p.operation == "Stream.synchronize")


class FakeStream:
    device_type = PRIVATEUSE1
    device_index = 0

    def __init__(self, stream_id: Any) -> None:
        self.stream_id = stream_id


def synchronize(self: Any) -> str:
    return "ran"


GUARDED = make_wrapper(SYNCHRONIZE, synchronize, _state.CLASS_SESSION)  # raises when off


@given(st.integers(min_value=-(2**70), max_value=2**70))
def test_refused_exactly_when_bit_30_is_set(stream_id: int) -> None:
    if stream_id & EXTERNAL_MARK:
        with pytest.raises(ExternalStreamError):
            GUARDED(FakeStream(stream_id))
    else:
        assert GUARDED(FakeStream(stream_id)) == "ran"


@pytest.mark.parametrize("stream_id", [None, "7", 1.5, object()])
def test_odd_ids_pass_through_to_the_original(stream_id: Any) -> None:
    assert GUARDED(FakeStream(stream_id)) == "ran"


def test_the_wrapper_is_the_compiled_one() -> None:
    assert GUARDED.__code__.co_filename.startswith("<extstream_guard wrapper")
