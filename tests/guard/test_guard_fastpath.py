"""wait_stream's fast path: same effects as torch_npu's code, and only when that code is stock."""

from __future__ import annotations

import contextlib
import sys
from typing import Any
from unittest import mock

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, _fastpath
from extstream_guard.wrappers import unwrap


def _effects(sim: Any, env: Any, call: Any) -> list[tuple[Any, ...]]:
    sim.state.log.clear()
    call()
    return [(entry[0], entry[2]) for entry in sim.state.log if entry[0] in ("record", "wait")]


def test_same_records_and_waits_as_without_the_guard(sim: Any, env: Any) -> None:
    stream, other = env.managed(), env.managed()
    sync_launch = env.npu.SyncLaunchStream()
    calls = [
        lambda: stream.wait_stream(other),
        lambda: stream.wait_stream(sync_launch),
        lambda: sync_launch.wait_stream(stream),
    ]
    unguarded = [_effects(sim, env, call) for call in calls]
    extstream_guard.install()
    assert [_effects(sim, env, call) for call in calls] == unguarded
    assert unguarded[0] == [("record", other.stream_id), ("wait", stream.stream_id)]
    assert stream.wait_stream(other) is None


def test_the_plan_is_made_from_the_stock_wheel_code(sim: Any) -> None:
    plan = _fastpath.plan(sim.torch_npu.npu.streams.Stream.wait_stream, unwrap)
    assert plan is not None and len(plan.record_event) == len(plan.wait_event) == 2

    def wait_stream(self: Any, stream: Any) -> None:
        self.wait_event(stream.record_event(), 1)

    wait_stream.__module__ = "torch_npu.npu.streams"
    assert _fastpath.plan(wait_stream, unwrap) is None


def test_subclass_overrides_are_honoured(sim: Any, env: Any) -> None:
    seen: list[str] = []

    class Traced(env.npu.Stream):  # type: ignore[misc, name-defined]
        def record_event(self, event: Any = None) -> Any:
            seen.append("record_event")
            return super().record_event(event)

        def wait_event(self, event: Any) -> None:
            seen.append("wait_event")
            super().wait_event(event)

    extstream_guard.install()
    traced = Traced()
    env.managed().wait_stream(traced)
    traced.wait_stream(env.managed())
    assert seen == ["record_event", "wait_event"]


@pytest.mark.parametrize("attr", ["record", "wait"])
@pytest.mark.parametrize("patched", ["before install", "after the fast path was taken"])
def test_somebody_elses_patch_of_event_methods_is_honoured(
    env: Any, attr: str, patched: str
) -> None:
    event_cls = env.npu.Event
    original = vars(event_cls)[attr]
    stream, other = env.managed(), env.managed()
    seen: list[Any] = []
    with contextlib.ExitStack() as undo:  # undone in reverse, so nothing leaks to other tests
        if patched != "before install":
            undo.enter_context(extstream_guard.installed())
            stream.wait_stream(other)
        current = getattr(event_cls, attr)

        def spy(self: Any, stream: Any = None) -> None:
            seen.append(stream)
            current(self, stream)

        undo.enter_context(mock.patch.object(event_cls, attr, spy))
        undo.enter_context(extstream_guard.installed())
        stream.wait_stream(other)
        stream.wait_stream(other)
    assert seen == [other if attr == "record" else stream] * 2
    assert vars(event_cls)[attr] is original


def test_external_sides_are_still_refused(env: Any) -> None:
    extstream_guard.install()
    with pytest.raises(ExternalStreamError) as info:
        env.managed().wait_stream(env.ext())
    assert info.value.code == "XST103"
    with pytest.raises(ExternalStreamError) as info:
        env.ext().wait_stream(env.managed())
    assert info.value.code == "XST104"


def _python_calls(call: Any) -> list[str]:
    """Qualified names of the Python functions ``call`` enters."""
    names: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            names.append(frame.f_code.co_qualname)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return names


def test_the_fast_path_is_taken_on_stock_code(env: Any) -> None:
    """What the benchmark's wait_stream figure rests on: no nested checks or stock frames."""
    stream, other = env.managed(), env.managed()
    assert "Stream.record_event" in _python_calls(lambda: stream.wait_stream(other))
    extstream_guard.install()
    stream.wait_stream(other)  # the first call learns which Event methods it may bypass
    called = _python_calls(lambda: stream.wait_stream(other))
    for bypassed in ("Stream.record_event", "Stream.wait_event", "Event.record", "Event.wait"):
        assert bypassed not in called


def test_a_rebound_streams_event_is_honoured(
    sim: Any, env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torch_npu's own code resolves ``Event`` at call time; so does the guard, failing alike."""
    streams = sim.torch_npu.npu.streams
    stock_event = streams.Event
    made: list[Any] = []

    def factory() -> Any:
        made.append(1)
        return stock_event()

    stream, other = env.managed(), env.managed()
    outcomes = []
    for install in (False, True):
        if install:
            extstream_guard.install()
            stream.wait_stream(other)
        monkeypatch.setattr(streams, "Event", factory)
        with pytest.raises(TypeError) as info:
            stream.wait_stream(other)
        outcomes.append((str(info.value), len(made)))
        monkeypatch.setattr(streams, "Event", stock_event)
        made.clear()
    assert outcomes[0] == outcomes[1] and outcomes[0][1] == 1
