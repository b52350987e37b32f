"""The guard's lifetime: reference counts across threads, leftover wrappers, missing targets."""

from __future__ import annotations

import threading
import warnings
from typing import Any
from unittest import mock

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, ExternalStreamWarning, GuardCoverageWarning
from extstream_guard._patching import unwrap
from extstream_guard.install import patched


def _guarded(ext: Any) -> bool:
    """Whether ext.synchronize() is refused by the guard (rather than by torch_npu)."""
    try:
        ext.synchronize()
    except ExternalStreamError:
        return True
    except RuntimeError:
        return False
    raise AssertionError("torch_npu accepted synchronize() on an external stream")


def test_overlapping_blocks_in_two_threads_are_reference_counted(env: Any) -> None:
    ext = env.ext()
    one_in, two_in, one_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def first() -> None:
        with extstream_guard.installed():
            one_in.set()
            two_in.wait(5)
        one_out.set()

    def second() -> None:
        one_in.wait(5)
        with extstream_guard.installed():
            two_in.set()
            one_out.wait(5)
            seen["after first left"] = _guarded(ext)
            seen["mode"] = extstream_guard.get_mode()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == {"after first left": True, "mode": "raise"}
    assert extstream_guard.get_mode() == "off" and patched() == []
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
    stream_cls = env.npu.Stream
    raw = vars(stream_cls)["synchronize"]
    ext = env.ext()
    try:
        extstream_guard.install()
        first = vars(stream_cls)["synchronize"]
        with mock.patch.object(stream_cls, "synchronize", lambda self: "user's"):
            extstream_guard.uninstall()  # restores torch_npu's method under the user's patch
        assert vars(stream_cls)["synchronize"] is first  # the user's patch put it back
        assert not _guarded(ext)  # ... and it lets the call through, as without the guard
        extstream_guard.install("warn")
        second = vars(stream_cls)["synchronize"]
        assert second is not first and unwrap(second) is raw and second.__wrapped__ is raw
        with pytest.warns(ExternalStreamWarning) as caught, pytest.raises(RuntimeError):
            ext.synchronize()
        assert len(caught) == 1  # wrapped once, not twice
        extstream_guard.uninstall()
        assert vars(stream_cls)["synchronize"] is first  # exact restore
    finally:
        stream_cls.synchronize = raw


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
