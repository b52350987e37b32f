"""The same scenario table on real Ascend hardware.

Marked ``npu``: skipped, with the reason, wherever ``torch_npu`` cannot be imported or has no
device. On an Ascend machine with CANN and torch_npu installed, run from the repository root::

    python -m pytest -m npu -p no:xdist tests/guard/test_guard_npu.py

(``-m npu`` replaces the default ``-m 'not slow'``; one process, since the HCCL group binds a
port and the device.) The hazard checks of issue 17 come last: only raise mode runs in this
process; their unguarded programs run in subprocesses, where they must abort.

External streams wrap the raw handle of a torch_npu-managed stream (torch_npu accepts
that and registers an external alias, contract section 4.2), so no other runtime library is
needed. Collectives run on a one-rank HCCL group initialised here; point-to-point scenarios need
a peer and are skipped.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.guard.scenarios import (
    LEFTOVER_WRAPPER_EXPECTED,
    OVERLAPPING_BLOCKS_EXPECTED,
    SCENARIOS,
    Env,
    Scenario,
    check,
    leftover_wrapper,
    overlapping_blocks,
)

pytestmark = pytest.mark.npu


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def hardware() -> Iterator[Env]:
    try:
        import torch_npu
    except Exception as exc:  # ImportError, or OSError/RuntimeError without CANN
        pytest.skip(f"needs torch_npu on an Ascend NPU with CANN ({type(exc).__name__}: {exc})")
    import torch
    import torch.distributed as dist

    if not torch_npu.npu.is_available():
        pytest.skip("torch_npu imports but reports no NPU device")
    owners: dict[int, Any] = {}

    def pointer(k: int) -> int:
        if k not in owners:
            owners[k] = torch_npu.npu.Stream()  # kept alive: its handle is the "external" one
        return int(owners[k].npu_stream)

    group = cpu_group = None
    started = False
    if dist.is_available() and not dist.is_initialized():
        try:
            dist.init_process_group(
                "hccl", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1
            )
            started = True
            group = dist.group.WORLD
            cpu_group = dist.new_group(backend="gloo")
        except Exception:  # no HCCL here: the collective scenarios skip with their reason
            group = cpu_group = None
    try:
        yield Env(
            torch, torch_npu, pointer=pointer,
            tensor=lambda: torch.tensor([1.0, 2.0, 3.0, 4.0], device="npu"), group=group,
            cpu_group=cpu_group,
        )  # fmt: skip
    finally:
        import extstream_guard

        extstream_guard.uninstall()
        if started:
            dist.destroy_process_group()


@pytest.mark.parametrize("mode", ["off", "raise", "warn"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario_on_hardware(hardware: Env, scenario: Scenario, mode: str) -> None:
    import torch_npu

    torch_npu.npu.synchronize()
    before = torch_npu.npu.current_stream()
    try:
        check(hardware, scenario, mode)
    finally:
        torch_npu.npu.set_stream(before)  # a failed capture may leave the stream switched


# --- issue 10: each defect, on the real torch_npu ----------------------------------------------
# The scenario table above already covers base-class Work waits (work-wait-current,
# work-synchronize-current), ProcessGroup methods (group-*), torch_npu's own TypeError for
# non-integer pointers (ctor-*-is-torch_npus-TypeError, ctor-None ...) and a blank scope_name
# (super_kernel_begin-blank-name). The tests below check the rest against the real classes.


def test_hw_hccl_works_are_base_class_work_and_guarded(hardware: Env) -> None:
    import extstream_guard

    if hardware.group is None:
        pytest.skip("no HCCL process group could be initialised")
    extstream_guard.install()
    try:
        work = hardware.dist.all_reduce(hardware.tensor(), group=hardware.group, async_op=True)
        assert type(work) is hardware.dist.Work  # what this issue is about
        with hardware.current(hardware.ext()), pytest.raises(extstream_guard.ExternalStreamError):
            work.wait()
        work.wait()
    finally:
        extstream_guard.uninstall()


def test_hw_installed_is_reference_counted_across_threads(hardware: Env) -> None:
    assert overlapping_blocks(hardware.ext()) == OVERLAPPING_BLOCKS_EXPECTED


def test_hw_leftover_wrapper_is_inert_and_not_wrapped_twice(hardware: Env) -> None:
    assert leftover_wrapper(hardware) == LEFTOVER_WRAPPER_EXPECTED


def test_hw_wait_stream_runs_user_interceptors(hardware: Env) -> None:
    import functools
    from unittest import mock

    import extstream_guard

    event_cls = hardware.npu.streams.Event
    stream, other = hardware.managed(), hardware.managed()
    seen = {}
    for mode in ("off", "raise"):
        calls: list[str] = []
        extstream_guard.install(mode)
        try:
            original = event_cls.record

            @functools.wraps(original)
            def tracer(
                *args: Any, _original: Any = original, _calls: Any = calls, **kwargs: Any
            ) -> Any:
                _calls.append("record")
                return _original(*args, **kwargs)

            with mock.patch.object(event_cls, "record", tracer):
                stream.wait_stream(other)
        finally:
            extstream_guard.uninstall()
        seen[mode] = calls
    assert seen["raise"] == seen["off"] == ["record"]


def test_hw_install_reports_no_missing_target(hardware: Env) -> None:
    import warnings

    import extstream_guard

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            extstream_guard.install()
    finally:
        extstream_guard.uninstall()
    missing = [w for w in caught if issubclass(w.category, extstream_guard.GuardCoverageWarning)]
    assert not missing, str(missing[0].message)


def test_hw_warnings_point_at_the_users_line(hardware: Env) -> None:
    import extstream_guard

    extstream_guard.install("warn")
    try:
        with pytest.warns(extstream_guard.ExternalStreamWarning) as caught:
            hardware.npu.ExternalStream(0)
        if hardware.group is not None:
            tensor = hardware.tensor()
            with (
                pytest.warns(extstream_guard.ExternalStreamWarning) as more,
                hardware.current(hardware.ext()),
                pytest.raises(RuntimeError),
            ):
                hardware.dist.all_reduce(tensor, group=hardware.group)
            # dist.all_reduce ends in the guarded ProcessGroup.allreduce: still one warning.
            warning = extstream_guard.ExternalStreamWarning
            assert len([w for w in more if w.category is warning]) == 1
            caught = [*caught, *more]
    finally:
        extstream_guard.uninstall()
    ours = [w for w in caught if issubclass(w.category, extstream_guard.ExternalStreamWarning)]
    assert ours and {w.filename for w in ours} == {__file__}


def test_hw_xst111_text_when_the_guard_raised_first(hardware: Env) -> None:
    import extstream_guard

    if hardware.group is None:
        pytest.skip("no HCCL process group could be initialised")
    extstream_guard.install()
    try:
        tensor = hardware.tensor()
        with (
            hardware.current(hardware.ext()),
            pytest.raises(extstream_guard.ExternalStreamError) as info,
        ):
            hardware.dist.all_reduce(tensor, group=hardware.group)
    finally:
        extstream_guard.uninstall()
    assert "have not advanced" in str(info.value)


# --- issue 17: the deferred hazards on the real torch_npu --------------------------------------
# Only raise mode runs in this process: a hazard the guard lets through aborts the process when
# the memory it touched is freed. The unguarded programs (which must abort, confirming the
# contract's reading of torch_npu) run in subprocesses.


@pytest.fixture
def guarded(hardware: Env) -> Iterator[Env]:
    import extstream_guard

    extstream_guard.install()
    try:
        yield hardware
    finally:
        extstream_guard.uninstall()


def _pinned_copies(env: Env) -> dict[str, Any]:
    torch = env.torch

    def pinned() -> Any:
        return torch.ones(4).pin_memory()

    return {
        "to-npu": lambda: pinned().to("npu", non_blocking=True),
        "npu()": lambda: pinned().npu(non_blocking=True),
        "npu-to-cpu": lambda: env.tensor().to("cpu", non_blocking=True),
        "copy_-into-npu": lambda: env.tensor().copy_(pinned(), non_blocking=True),
        "copy_-into-pinned": lambda: pinned().copy_(env.tensor(), non_blocking=True),
        "storage-copy_": lambda: (
            env.tensor().untyped_storage().copy_(pinned().untyped_storage(), non_blocking=True)
        ),
    }


def test_hw_pinned_non_blocking_copies_raise_xst201(guarded: Env) -> None:
    import extstream_guard

    ext = guarded.ext()
    for name, copy in _pinned_copies(guarded).items():
        with guarded.current(ext), pytest.raises(extstream_guard.ExternalStreamError) as info:
            copy()
        assert info.value.code == "XST201", name


def test_hw_safe_copies_pass(guarded: Env) -> None:
    torch = guarded.torch
    ext = guarded.ext()
    with guarded.current(ext):
        torch.ones(4).to("npu", non_blocking=True)  # pageable: synchronised
        torch.ones(4).pin_memory().to("npu", non_blocking=False)
        guarded.tensor().cpu()
        guarded.tensor().to("cpu")
        guarded.tensor().to("npu", copy=True, non_blocking=True)
    with guarded.current(guarded.managed()):
        for copy in _pinned_copies(guarded).values():
            copy()
    guarded.npu.synchronize()


def test_hw_backward_across_the_boundary_raises_xst203(guarded: Env) -> None:
    import extstream_guard

    torch = guarded.torch
    ext = guarded.ext()
    weight = torch.ones(4, device="npu", requires_grad=True)
    with guarded.current(ext):
        loss = (weight * 2).sum()
    with pytest.raises(extstream_guard.ExternalStreamError, match=r"\[XST203\]"):
        loss.backward()
    other = (weight * 2).sum()
    with guarded.current(ext), pytest.raises(extstream_guard.ExternalStreamError) as info:
        torch.autograd.grad(other, weight)
    assert info.value.code == "XST203"


def test_hw_forward_and_backward_under_one_external_stream_pass(guarded: Env) -> None:
    torch = guarded.torch
    ext = guarded.ext()
    with guarded.current(ext):
        weight = torch.ones(4, device="npu", requires_grad=True)
        (weight * 2).sum().backward()
    guarded.npu.synchronize()
    assert float(weight.grad[0]) == 2.0


def test_hw_cross_device_copy_raises_xst112(guarded: Env) -> None:
    import extstream_guard

    if guarded.npu.device_count() < 2:
        pytest.skip("needs two NPUs")
    ext = guarded.ext()
    with guarded.current(ext), pytest.raises(extstream_guard.ExternalStreamError) as info:
        guarded.tensor().to("npu:1")
    assert info.value.code == "XST112"


@pytest.mark.parametrize(
    ("name", "aborts"),
    [("pinned-to-npu", True), ("npu-to-cpu", True), ("backward-outside", True),
     ("pageable-to-npu", False), ("backward-inside", False)],
)  # fmt: skip
def test_hw_unguarded_program_ends_as_the_simulation_says(
    hardware: Env, name: str, aborts: bool
) -> None:
    import signal

    from tests.guard.test_sim_hazards import run_program

    result = run_program(name, "none", "--hardware")
    if aborts:
        assert result.returncode == -signal.SIGABRT, (result.returncode, result.stderr[-2000:])
    else:
        assert result.returncode == 0 and result.stdout.rstrip().endswith("LIVED")


@pytest.mark.parametrize("name", ["pinned-to-npu", "npu-to-cpu", "backward-outside"])
def test_hw_guarded_program_lives(hardware: Env, name: str) -> None:
    from tests.guard.test_sim_hazards import run_program

    result = run_program(name, "raise", "--hardware")
    assert result.returncode == 0 and "CAUGHT XST2" in result.stdout, result.stderr[-2000:]
