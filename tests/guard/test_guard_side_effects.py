"""The damage the guard exists to prevent: torch_npu fails only after changing state.

Each test shows the side effect with the guard off (so the simulation is faithful) and its
absence with the guard on.
"""

from __future__ import annotations

from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError
from tests._skips import NO_TORCH

pytest.importorskip("torch", reason=NO_TORCH)  # fake_dist builds on torch.distributed
from tests.guard.npusim import fake_dist


@pytest.mark.parametrize("mode", ["off", "raise"])
def test_failed_graph_capture_with_stream_ext_leaves_ext_current_only_without_guard(
    env: Any, mode: str
) -> None:
    ext = env.ext()
    extstream_guard.install(mode)
    with pytest.raises(RuntimeError), env.npu.graph(env.npu.NPUGraph(), stream=ext):
        pass
    assert (env.npu.current_stream() == ext) is (mode == "off")


@pytest.mark.parametrize("mode", ["off", "raise"])
def test_subscribe_report_starts_no_thread_under_guard(env: Any, sim: Any, mode: str) -> None:
    extstream_guard.install(mode)
    with pytest.raises(RuntimeError):
        env.npu._subscribe_report(env.ext())
    assert sim.state.report_threads == (1 if mode == "off" else 0)


@pytest.mark.parametrize("mode", ["off", "raise"])
def test_refused_collective_does_not_bump_sequence_counters_under_guard(
    env: Any, mode: str
) -> None:
    tensor = env.tensor()
    extstream_guard.install(mode)
    with env.current(env.ext()), pytest.raises(RuntimeError):
        env.dist.all_reduce(tensor, group=env.group)
    assert fake_dist.state(env.group).seq == (1 if mode == "off" else 0)


@pytest.mark.parametrize("mode", ["off", "raise"])
def test_wait_stream_is_refused_where_torch_npu_refuses_it(env: Any, sim: Any, mode: str) -> None:
    # Stream.wait_stream is not wrapped (a third guard frame on every call): the guarded
    # Event.record / Event.wait it calls refuse it. `ext.wait_stream(s)` records on `s` first,
    # as torch_npu does; `s.wait_stream(ext)` records nothing.
    managed, ext = env.managed(), env.ext()
    extstream_guard.install(mode)
    with pytest.raises(RuntimeError) as info:
        ext.wait_stream(managed)
    assert isinstance(info.value, ExternalStreamError) is (mode == "raise")
    assert [entry[2] for entry in sim.state.log if entry[0] == "record"] == [managed.stream_id]
    sim.state.log.clear()
    with pytest.raises(RuntimeError):
        managed.wait_stream(ext)
    assert [entry for entry in sim.state.log if entry[0] in ("record", "wait")] == []


def test_per_stream_queue_does_not_break_the_guard(
    env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under PER_STREAM_QUEUE=1 reading npu_stream raises X22; the guard never reads it, so
    # the precise error still comes out.
    monkeypatch.setenv("PER_STREAM_QUEUE", "1")
    ext = env.ext()
    with pytest.raises(RuntimeError, match="per-stream task queue"):
        _ = ext.npu_stream
    extstream_guard.install()
    with pytest.raises(ExternalStreamError) as info:
        ext.synchronize()
    assert info.value.code == "XST101"


def test_warn_mode_lets_the_call_through_unchanged(env: Any, sim: Any) -> None:
    extstream_guard.install("warn")
    with (
        pytest.warns(extstream_guard.ExternalStreamWarning, match=r"\[XST109\]"),
        pytest.raises(RuntimeError, match="launch_callback") as info,
    ):
        env.npu._launch_host_func(env.ext(), print, None)
    assert not isinstance(info.value, ExternalStreamError)


def test_guard_does_not_change_results_of_supported_calls(env: Any) -> None:
    managed = env.managed()
    expected = (
        managed.query(),
        type(managed.record_event()),
        env.npu.graph_task_group_end(managed),
    )
    extstream_guard.install()
    assert (
        managed.query(),
        type(managed.record_event()),
        env.npu.graph_task_group_end(managed),
    ) == expected


def test_guard_keeps_native_exceptions_of_unrelated_failures(env: Any) -> None:
    extstream_guard.install()
    with pytest.raises(RuntimeError, match="scope_name should be None or a non-empty string"):
        env.npu.super_kernel_scope_begin("   ")
    with pytest.raises(AttributeError):
        env.managed().wait_stream(None)
    with pytest.raises(TypeError):
        env.npu.ExternalStream()  # no pointer at all: torch_npu's own signature error
