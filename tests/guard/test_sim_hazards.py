"""The simulated torch_npu reproduces the deferred failures of contract 2.6 (issue 17).

What torch_npu accepts and dies of later must happen in the simulation too, or the guard's
tests would prove nothing: a pinned block remembers the external stream a ``non_blocking`` copy
ran on and the process dies with SIGABRT when the block is freed; the autograd engine raises
X06/X07 across an external-stream boundary, and the root gradient it recorded aborts the process
when freed. The aborts run in subprocesses (:mod:`tests.guard.hazard_programs`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from extstream_lint.contract import native_not_supported

ROOT = Path(__file__).resolve().parents[2]
RECORD = native_not_supported("NPUEvent::record")
HANDLE = 0x7A00_0000


def run_program(name: str, mode: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """Run one program of :mod:`tests.guard.hazard_programs` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TORCH_NPU_COMPACT_ERROR_OUTPUT": "1"}
    return subprocess.run(
        [sys.executable, "-m", "tests.guard.hazard_programs", name, mode, *flags],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def assert_aborted(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == -signal.SIGABRT, (result.returncode, result.stderr[-2000:])
    assert "terminate called after throwing an instance of 'c10::Error'" in result.stderr
    assert RECORD in result.stderr
    assert "LIVED" not in result.stdout


@pytest.fixture
def wheel_built(sim_build: Any) -> Any:
    """The subprocesses build the simulation from the same wheel tree (downloaded here)."""
    return sim_build


# --- in a subprocess: the aborts -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("pinned-to-npu", "COPIED"),
        ("npu-to-cpu", "COPIED"),
        ("pinned-copy-into-npu", "COPIED"),
        # X07 from the engine first, then the root gradient's free aborts
        ("backward-outside", f"NATIVE {native_not_supported('LaunchWaitEventTask')}"),
        # X07 at the interior edge, then the gradient it carried aborts when freed
        ("backward-mixed", f"NATIVE {native_not_supported('LaunchWaitEventTask')}"),
    ],
)
def test_unguarded_program_aborts_later(wheel_built: Any, name: str, marker: str) -> None:
    result = run_program(name, "none")
    assert_aborted(result)
    assert marker in result.stdout  # the call itself went through
    assert "FREED" not in result.stdout and "AFTER" not in result.stdout  # died at the free


@pytest.mark.parametrize(
    ("name", "marker"),
    [
        ("pageable-to-npu", "FREED"),  # synchronised, not recorded
        ("pinned-kept-until-exit", "COPIED"),  # freed after torch_npu's atexit shutdown
        ("backward-inside", f"NATIVE {native_not_supported('LaunchRecordEventTask')}"),
    ],
)
def test_unguarded_program_that_lives(wheel_built: Any, name: str, marker: str) -> None:
    result = run_program(name, "none")
    assert result.returncode == 0, result.stderr[-2000:]
    assert marker in result.stdout and result.stdout.rstrip().endswith("LIVED")


# --- in process: what each copy records ------------------------------------------------------


def _streams_of(tensor: Any) -> set[tuple[int, int]]:
    from tests.guard.npusim import memory

    block = memory.pinned_block(tensor)
    assert block is not None, "not in a pinned block"
    return set(block.streams)


def _defuse(*tensors: Any) -> None:
    """Forget what the blocks recorded, so freeing them in this process does not abort it."""
    from tests.guard.npusim import memory

    for tensor in tensors:
        memory.pinned_block(tensor).streams.clear()


def test_pin_memory_and_is_pinned(sim: Any) -> None:
    import torch

    from tests.guard import npusim

    host = torch.arange(4.0)
    pinned = host.pin_memory()
    assert pinned.is_pinned() and not host.is_pinned()
    assert pinned[1:].is_pinned() and pinned.untyped_storage().is_pinned()
    assert torch.equal(pinned, host) and pinned.device.type == "cpu"
    assert pinned.pin_memory() is pinned
    assert not npusim.npu_tensor().is_pinned()
    assert not (pinned + 1).is_pinned()  # a new, pageable allocation


def test_non_blocking_h2d_records_the_current_stream_in_the_pinned_block(sim: Any) -> None:
    import torch

    npu = sim.torch_npu.npu
    ext, managed = npu.ExternalStream(HANDLE), npu.Stream()
    pinned = torch.ones(4).pin_memory()
    with npu.stream(managed):
        pinned.to("npu", non_blocking=True)
    assert _streams_of(pinned) == {(0, managed.stream_id)}
    with npu.stream(ext):
        result = pinned.npu(non_blocking=True)
        pinned.to("npu", non_blocking=False)  # blocking: nothing recorded
        pinned.to("npu", torch.float64, non_blocking=True)  # staged through pageable memory
    assert result.device == torch.device("npu", 0)
    assert _streams_of(pinned) == {(0, managed.stream_id), (0, ext.stream_id)}
    _defuse(pinned)


def test_pageable_h2d_synchronises_instead(sim: Any) -> None:
    import torch

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    with npu.stream(ext):
        torch.ones(4).to("npu", non_blocking=True)
    assert ("synchronize_with_timeout", 0, ext.stream_id) in sim.state.log


def test_d2h_non_blocking_result_is_pinned_and_blocking_is_not(sim: Any) -> None:
    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    tensor = npusim.npu_tensor()
    with npu.stream(ext):
        pageable = tensor.cpu()
        blocking = tensor.to("cpu")
        pinned = tensor.to("cpu", non_blocking=True)
    assert not pageable.is_pinned() and not blocking.is_pinned()
    assert pinned.is_pinned() and _streams_of(pinned) == {(0, ext.stream_id)}
    _defuse(pinned)


def test_copy_into_either_side(sim: Any) -> None:
    import torch

    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    tensor, pinned = npusim.npu_tensor(), torch.zeros(4).pin_memory()
    with npu.stream(ext):
        pinned.copy_(tensor, non_blocking=True)
    assert torch.equal(pinned, torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert _streams_of(pinned) == {(0, ext.stream_id)}
    _defuse(pinned)
    source = torch.full((4,), 7.0).pin_memory()
    with npu.stream(ext):
        tensor.copy_(source, non_blocking=True)
    assert _streams_of(source) == {(0, ext.stream_id)} and float(tensor[0]) == 7.0
    _defuse(source)


def test_storage_copy(sim: Any) -> None:
    import torch

    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    pinned = torch.ones(4).pin_memory()
    storage = npusim.npu_storage(16)
    assert storage.device == torch.device("npu", 0)
    with npu.stream(ext):
        storage.copy_(pinned.untyped_storage(), non_blocking=True)
    assert _streams_of(pinned) == {(0, ext.stream_id)}
    _defuse(pinned)


def test_cross_device_copy_records_and_blocks_both_current_streams(sim: Any) -> None:
    import torch

    from tests.guard import npusim

    npu = sim.torch_npu.npu
    npu.set_device(1)
    ext1 = npu.ExternalStream(HANDLE)
    npu.set_device(0)
    ext0 = npu.ExternalStream(HANDLE)
    on0, on1 = npusim.npu_tensor(device=0), npusim.npu_tensor(device=1)
    assert on0.to("npu:1").device == torch.device("npu", 1)  # managed on both: fine
    with npu.stream(ext0), pytest.raises(RuntimeError, match="NPUEvent::record"):
        on0.to("npu:1")  # the source's current stream records
    with npu.stream(ext1), pytest.raises(RuntimeError, match="NPUEvent::block"):
        on0.to("npu:1")  # the destination's current stream waits
    with npu.stream(ext1), pytest.raises(RuntimeError, match="NPUEvent::block"):
        on1.copy_(on0)
    with npu.stream(ext0):
        on0.to("npu:0", copy=True)  # one device: no events


def test_engine_same_external_stream_runs(sim: Any) -> None:
    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    weight = npusim.npu_tensor(requires_grad=True)
    with npu.stream(ext):
        (weight * 3).sum().backward()
    assert weight.grad is not None and float(weight.grad[0]) == 3.0


def test_engine_cpu_graph_is_not_synchronised(sim: Any) -> None:
    import torch

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    weight = torch.ones(4, requires_grad=True)
    with npu.stream(ext):
        loss = (weight * 2).sum()
    loss.backward()
    assert float(weight.grad[0]) == 2.0


# --- the engine: what the graph carries (issue 31) ---------------------------------------------


def _aborts(monkeypatch: Any) -> list[str]:
    """The simulated terminations of this test, kept from the ``sim`` fixture's check."""
    from tests.guard.npusim import memory

    seen: list[str] = []
    monkeypatch.setattr(memory, "terminate", seen.append)
    return seen


def test_nodes_carry_the_stream_of_the_thread_that_made_them(sim: Any, monkeypatch: Any) -> None:
    """A graph made under ext in another thread, run in this one under the default stream:
    the nodes' stream is theirs, not this thread's history (X07, then the root gradient,
    recorded on ext, aborts when freed)."""
    import gc
    import threading

    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    weight = npusim.npu_tensor(requires_grad=True)
    made: list[Any] = []

    def forward() -> None:
        with npu.stream(ext):
            made.append((weight * 2).sum())

    thread = threading.Thread(target=forward)
    thread.start()
    thread.join()
    aborts = _aborts(monkeypatch)
    try:
        made[0].backward()
    except RuntimeError as exc:
        assert native_not_supported("LaunchWaitEventTask") in str(exc)
        del exc
    else:
        raise AssertionError("the engine ran across the boundary")
    made.clear()
    gc.collect()
    assert len(aborts) == 1 and RECORD in aborts[0]


def test_interior_edge_records_the_external_stream_on_its_gradient(
    sim: Any, monkeypatch: Any
) -> None:
    """``h = w * 2`` under ext, ``h.sum().backward()`` outside: the root step is between
    managed streams; the edge into ``h``'s node waits on ext (X07) after recording ext on the
    gradient it carries, which aborts when the failed graph task frees it."""
    import gc

    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    weight = npusim.npu_tensor(requires_grad=True)
    with npu.stream(ext):
        hidden = weight * 2
    loss = hidden.sum()
    aborts = _aborts(monkeypatch)
    try:
        loss.backward()
    except RuntimeError as exc:
        assert native_not_supported("LaunchWaitEventTask") in str(exc)
        del exc
    else:
        raise AssertionError("the engine ran across the boundary")
    gc.collect()
    assert len(aborts) == 1 and RECORD in aborts[0]


def test_accumulator_made_before_the_region_fails_the_backward_in_it(sim: Any) -> None:
    """Forward and backward under the same ext, but the leaf's AccumulateGrad was made outside
    it (an earlier graph still holds it): the edge into it records on ext (X06)."""
    from tests.guard import npusim

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    weight = npusim.npu_tensor(requires_grad=True)
    kept = weight * 1  # makes the accumulator, under the default stream, and keeps it
    with npu.stream(ext):
        loss = (weight * 2).sum()
        with pytest.raises(RuntimeError, match="LaunchRecordEventTask"):
            loss.backward()
    del kept, loss
    with npu.stream(ext):  # no graph holds the old accumulator: a new one, made under ext
        (weight * 2).sum().backward()
    assert float(weight.grad[0]) == 2.0


def test_leaf_post_processing_syncs_leaf_streams_with_the_callers(sim: Any) -> None:
    """``exec_post_processing``: a leaf (AccumulateGrad) stream other than the caller's
    current stream on its device is recorded, and the caller's stream waits. In a graph on
    one device an edge crossing the same streams fails first; this step is checked on the
    leaves the walk returns."""
    import torch

    from tests.guard import npusim
    from tests.guard.npusim import engine

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    weight = npusim.npu_tensor(requires_grad=True)
    loss = (weight * 2).sum()
    leaves = engine._sync_graph(loss, torch.ones(()), 0)
    assert [type(leaf).__name__ for leaf in leaves] == ["AccumulateGrad"]
    engine._post_process(leaves)  # managed on both sides
    with npu.stream(ext), pytest.raises(RuntimeError, match="LaunchWaitEventTask"):
        engine._post_process(leaves)  # the caller's stream (ext) would wait on the leaf's
    assert engine.node_stream(leaves[0]) == (0, 0)
