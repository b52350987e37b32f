"""The guard's lifetime: reference counts across threads, leftover wrappers, missing targets."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, GuardCoverageWarning
from extstream_guard._patching import unwrap
from extstream_guard.install import patched
from tests.guard.scenarios import (
    LEFTOVER_WRAPPER_EXPECTED,
    OVERLAPPING_BLOCKS_EXPECTED,
    guarded_by_extstream,
    leftover_wrapper,
    overlapping_blocks,
)

_guarded = guarded_by_extstream


def test_overlapping_blocks_in_two_threads_are_reference_counted(env: Any) -> None:
    ext = env.ext()
    assert overlapping_blocks(ext) == OVERLAPPING_BLOCKS_EXPECTED
    assert not _guarded(ext)


def test_the_most_recent_reference_sets_the_mode(env: Any) -> None:
    extstream_guard.install("warn")
    with extstream_guard.installed("raise"):
        assert extstream_guard.get_mode() == "raise"
        with extstream_guard.installed("off"):
            assert extstream_guard.get_mode() == "off" and patched()  # inert, still in place
            with pytest.raises(RuntimeError, match="NPUStream::synchronize") as info:
                env.ext().synchronize()
            assert not isinstance(info.value, ExternalStreamError)
        assert extstream_guard.get_mode() == "raise"
    assert extstream_guard.get_mode() == "warn"
    extstream_guard.uninstall()
    assert extstream_guard.get_mode() == "off" and patched() == []


def test_uninstall_leaves_a_block_of_another_thread_guarded(env: Any) -> None:
    ext = env.ext()
    entered, release = threading.Event(), threading.Event()
    seen: list[bool] = []

    def block() -> None:
        with extstream_guard.installed():
            entered.set()
            release.wait(5)
            seen.append(_guarded(ext))

    extstream_guard.install()
    thread = threading.Thread(target=block)
    thread.start()
    entered.wait(5)
    extstream_guard.uninstall()
    release.set()
    thread.join(10)
    assert seen == [True] and patched() == []


def test_a_leftover_wrapper_is_inert_and_recognised_on_reinstall(env: Any) -> None:
    assert leftover_wrapper(env) == LEFTOVER_WRAPPER_EXPECTED


def test_a_users_functools_wraps_tracer_is_not_taken_for_the_guards(env: Any) -> None:
    import functools

    stream_cls = env.npu.Stream
    raw = vars(stream_cls)["query"]
    calls: list[str] = []
    try:
        extstream_guard.install()
        guarded = vars(stream_cls)["query"]

        @functools.wraps(guarded)
        def tracer(self: Any) -> Any:
            calls.append("traced")
            return guarded(self)

        stream_cls.query = tracer
        extstream_guard.uninstall()
        stream_cls.query = tracer
        extstream_guard.install()  # wraps the tracer: it must not be peeled off
        assert unwrap(vars(stream_cls)["query"]) is tracer
        env.managed().query()
        assert calls == ["traced"]
    finally:
        extstream_guard.uninstall()
        stream_cls.query = raw


def test_install_names_each_missing_target(env: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(env.npu, "_subscribe_report")
    monkeypatch.delattr(env.tn.distributed, "all_to_all_vc")
    with pytest.warns(GuardCoverageWarning) as caught:
        extstream_guard.install()
    assert len(caught) == 1 and caught[0].filename == __file__
    message = str(caught[0].message)
    assert "torch_npu.npu._subscribe_report" in message
    assert "torch_npu.distributed.all_to_all_vc" in message
    assert "torch_npu.npu._launch_host_func" not in message
    assert "not guarded" in message


def test_a_complete_installation_warns_nothing(env: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        extstream_guard.install()
