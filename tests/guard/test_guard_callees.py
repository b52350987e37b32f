"""The guard never replays torch_npu: whatever a guarded call reaches runs as without it.

``Stream.wait_stream`` is ``self.wait_event(stream.record_event())``, which reaches
``Event.record`` / ``Event.wait``. A decorator on those (as a future torch_npu may add), an
instance-level ``mock.patch.object`` and a ``functools.wraps`` tracer must run with the guard
exactly as they run without it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest

import extstream_guard


def _counting(calls: list[str], name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return func(*args, **kwargs)

    return spy


@contextlib.contextmanager
def _event_decorators(env: Any, calls: list[str], _: Any) -> Iterator[None]:
    event = env.npu.streams.Event
    with (
        mock.patch.object(event, "record", _counting(calls, "record", event.record)),
        mock.patch.object(event, "wait", _counting(calls, "wait", event.wait)),
    ):
        yield


@contextlib.contextmanager
def _instance_mock(env: Any, calls: list[str], other: Any) -> Iterator[None]:
    with mock.patch.object(
        other, "record_event", _counting(calls, "record_event", other.record_event)
    ):
        yield


@contextlib.contextmanager
def _tracer_over_the_guard(env: Any, calls: list[str], _: Any) -> Iterator[None]:
    # Installed after the guard: functools.wraps copies the guard wrapper's attributes.
    event = env.npu.streams.Event
    with mock.patch.object(event, "record", _counting(calls, "record", event.record)):
        yield


@pytest.mark.parametrize(
    ("interceptor", "before_install"),
    [(_event_decorators, True), (_instance_mock, False), (_tracer_over_the_guard, False)],
    ids=["decorated-by-torch_npu", "instance-mock", "wraps-tracer-over-the-guard"],
)
def test_wait_stream_runs_what_it_runs_without_the_guard(
    env: Any, interceptor: Any, before_install: bool
) -> None:
    stream, other = env.managed(), env.managed()
    seen = {}
    for mode in ("off", "raise", "warn"):
        calls: list[str] = []
        with contextlib.ExitStack() as stack:
            if before_install:  # part of torch_npu's classes when the guard wraps them
                stack.enter_context(interceptor(env, calls, other))
            extstream_guard.install(mode)
            stack.callback(extstream_guard.uninstall)
            if not before_install:
                stack.enter_context(interceptor(env, calls, other))
            assert stream.wait_stream(other) is None
        seen[mode] = calls
    assert seen["off"], "the interceptor never ran: the test would prove nothing"
    assert seen["raise"] == seen["warn"] == seen["off"]


def test_a_decorated_event_record_still_refuses_external_streams(env: Any, sim: Any) -> None:
    calls: list[str] = []
    with _event_decorators(env, calls, None):  # torch_npu's own decorator, then the guard
        extstream_guard.install()
        with pytest.raises(extstream_guard.ExternalStreamError):
            env.managed().wait_stream(env.ext())
        extstream_guard.uninstall()
    assert calls == []  # the guard refused before the decorated method ran
    assert [entry for entry in sim.state.log if entry[0] == "record"] == []
