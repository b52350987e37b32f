"""wait_stream's fast path: same effects as torch_npu's code, and only when that code is stock."""

from __future__ import annotations

from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, _fastpath


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
    plan = _fastpath.plan(sim.torch_npu.npu.streams.Stream.wait_stream)
    assert plan is not None and len(plan.record_event) == len(plan.wait_event) == 2

    def wait_stream(self: Any, stream: Any) -> None:
        self.wait_event(stream.record_event(), 1)

    wait_stream.__module__ = "torch_npu.npu.streams"
    assert _fastpath.plan(wait_stream) is None


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


def test_a_later_patch_of_event_record_is_honoured(
    sim: Any, env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    extstream_guard.install()
    event_cls = env.npu.Event
    seen: list[Any] = []
    current = event_cls.record

    def spy(self: Any, stream: Any = None) -> None:
        seen.append(stream)
        current(self, stream)

    monkeypatch.setattr(event_cls, "record", spy)
    other = env.managed()
    env.managed().wait_stream(other)
    assert seen == [other]


def test_external_sides_are_still_refused(env: Any) -> None:
    extstream_guard.install()
    with pytest.raises(ExternalStreamError) as info:
        env.managed().wait_stream(env.ext())
    assert info.value.code == "EXS103"
    with pytest.raises(ExternalStreamError) as info:
        env.ext().wait_stream(env.managed())
    assert info.value.code == "EXS104"
