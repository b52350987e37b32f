"""Two-device graphs on the simulated autograd engine (issue 40; hazards.md, hazard 3).

torch's engine runs a node on the worker thread of the node's device, where that device is
current (``thread_init``), under the node's own stream (``evaluate_function``). The simulation
runs the C++ engine on the first NPU root's device thread and, while a node runs, makes the
node's device and stream current there, which is what hooks, backward formulas and a
checkpoint's recomputation see on hardware (the thread is not the device's own: see
docs/guard.md).
"""

from __future__ import annotations

import gc
import threading
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError

HANDLE = 0x7E57_0000


def _two_device_graph(npu: Any, stream: Any) -> tuple[Any, Any]:
    """``loss`` on npu:0 over a product made on npu:1 under ``stream``; returns it with the
    npu:1 tensor."""
    from tests.guard import npusim

    w0 = npusim.npu_tensor(requires_grad=True, device=0)
    w1 = npusim.npu_tensor(requires_grad=True, device=1)
    with npu.stream(stream):
        hidden = w1 * 2  # MulBackward0 on npu:1, made under ``stream``
    return (hidden.to("npu:0") * w0).sum(), hidden


def test_a_device_1_node_runs_with_npu_1_and_its_stream_current(sim: Any) -> None:
    """A hook of the npu:1 node of a graph rooted on npu:0 sees npu:1 current and the stream
    the node was made under, as on npu:1's engine thread; it saw npu:0 before."""
    npu = sim.torch_npu.npu
    side = npu.Stream(device=1)
    loss, hidden = _two_device_graph(npu, side)
    seen: list[tuple[int, int, int]] = []
    hidden.register_hook(
        lambda _: seen.append(
            (npu.current_device(), npu.current_stream(1).stream_id, npu.current_stream(0).stream_id)
        )
    )
    loss.backward()
    assert seen == [(1, side.stream_id, 0)]
    assert threading.current_thread() is threading.main_thread()
    assert npu.current_device() == 0 and npu.current_stream(1).stream_id == 0


def test_a_two_device_graph_across_an_external_stream_without_the_guard(sim: Any) -> None:
    """The npu:1 node made under the external stream waits on an event there (X07) and its
    input gradient, recorded on that stream, aborts the process when freed."""
    from tests.guard.npusim import memory

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE, device=1)
    loss, _ = _two_device_graph(npu, ext)
    aborted: list[str] = []
    fixture_terminate, memory.terminate = memory.terminate, aborted.append
    try:
        with pytest.raises(RuntimeError, match="LaunchWaitEventTask"):
            loss.backward()
        gc.collect()
    finally:
        memory.terminate = fixture_terminate
    assert aborted and "NPUEvent::record" in aborted[0]


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="the simulated nodes' _input_metadata say cpu (the tensors are CPU tensors to "
    "C++): the npu:1 node is judged against npu:0's switch history, as a node without an NPU "
    "device is; genuine PrivateUse1 tensors cannot run a npu:1 node on torch 2.13's engine "
    "(test_torch_s_python_backend_runs_no_device_1_node; docs/guard.md, Limitations)",
)
@pytest.mark.parametrize("backward_in", [False, True], ids=["backward-outside", "backward-in"])
def test_a_two_device_graph_across_an_external_stream_is_xst203(
    sim: Any, backward_in: bool
) -> None:
    """With the guard: XST203 before the engine runs, whether ``backward()`` runs under the
    external stream or not (the graph mixes it with npu:0's default stream)."""
    from tests.guard.npusim import memory

    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE, device=1)
    loss, _ = _two_device_graph(npu, ext)
    aborted: list[str] = []
    fixture_terminate, memory.terminate = memory.terminate, aborted.append
    refused = None
    try:
        if backward_in:
            with npu.stream(ext):
                loss.backward()
        else:
            loss.backward()
    except ExternalStreamError as exc:
        refused = "[XST203]" in str(exc)
    except RuntimeError:  # the engine's X07: the guard let the call through
        refused = False
    finally:
        # the traceback is gone: the gradient the engine recorded on ext is freed here, and
        # its abort lands in ``aborted``, not in a later test
        del loss
        gc.collect()
        memory.terminate = fixture_terminate
    assert refused and not aborted


# --- each node judged against its own device (issue 40) ------------------------------------------
#
# The guard reads a node's device where the engine does (``Node::stream()``: the first input
# metadata of the accelerator's type, ``node._input_metadata[i].device`` from Python). The
# simulated NPU tensors are CPU tensors to C++, so their nodes' metadata says ``cpu`` (the
# xfails above); the tests below hand the guard the device the simulated kernels tagged the node
# with, which is what ``_input_metadata`` names on hardware, and judge the rest of the check.


def _tagged_device(node: Any) -> int | None:
    from tests.guard.npusim import engine

    tagged = engine.node_stream(node)
    return None if tagged is None else tagged[0]


class _Meta:
    def __init__(self, device: Any) -> None:
        self.device = device


class _Node:
    def __init__(self, *devices: Any) -> None:
        self._input_metadata = tuple(_Meta(d) for d in devices)


def test_a_node_s_device_is_its_first_npu_input_metadata(sim: Any) -> None:
    """``_input_metadata`` is what torch 2.13 exposes on every node; the first entry of the
    accelerator's type names the device, as ``Node::stream()`` picks it; none: None."""
    import torch

    from extstream_guard import _autograd

    extstream_guard.install()
    npu = sim.torch_npu.npu
    npu.ExternalStream(HANDLE, device=1)  # arms the checks (the device table with them)
    cpu = (torch.ones(2, requires_grad=True) * 2).grad_fn
    assert [m.device for m in cpu._input_metadata] == [torch.device("cpu")]
    assert _autograd._node_device(cpu) is None
    node = _Node(torch.device("cpu"), torch.device("npu", 1), torch.device("npu", 0))
    assert _autograd._node_device(node) == 1
    assert _autograd._node_device(object()) is None


@pytest.mark.parametrize("backward_in", [False, True], ids=["backward-outside", "backward-in"])
def test_a_device_1_node_under_its_external_stream_is_judged_on_npu_1(
    sim: Any, monkeypatch: pytest.MonkeyPatch, backward_in: bool
) -> None:
    """With the node's device known: XST203 before the engine runs, naming the npu:1 node and
    its stream, whether ``backward()`` runs under the external stream or not."""
    from extstream_guard import _autograd

    monkeypatch.setattr(_autograd, "_node_device", _tagged_device)
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE, device=1)
    loss, _ = _two_device_graph(npu, ext)
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]") as caught:
        if backward_in:
            with npu.stream(ext):
                loss.backward()
        else:
            loss.backward()
    assert "MulBackward0" in str(caught.value) and "npu:1" in str(caught.value)
    assert caught.value.device == 1


def test_a_two_device_graph_over_managed_streams_passes(
    sim: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: the npu:1 node made under an ordinary ``torch.npu.Stream`` after an external
    stream was current on npu:1 (so every node is read by its device) is not refused."""
    from extstream_guard import _autograd

    monkeypatch.setattr(_autograd, "_node_device", _tagged_device)
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE, device=1)
    with npu.stream(ext):
        pass
    loss, hidden = _two_device_graph(npu, npu.Stream(device=1))
    loss.backward()
    assert hidden.grad_fn is not None


def test_npu_0_nodes_made_while_npu_1_s_external_stream_was_current_pass(
    sim: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: a graph of npu:0 nodes built inside ``torch.npu.stream(ext1)`` ran on npu:0's
    managed stream: judged against npu:0's points, it is not refused (judged against npu:1's
    it would be)."""
    from extstream_guard import _autograd
    from tests.guard import npusim

    monkeypatch.setattr(_autograd, "_node_device", _tagged_device)
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE, device=1)
    w0 = npusim.npu_tensor(requires_grad=True, device=0)
    with npu.stream(ext):
        loss = (w0 * 2).sum()
    loss.backward()
    assert w0.grad is not None


def test_node_devices_are_read_only_after_another_device_had_an_external_stream(
    sim: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cost: with external streams on the root's device only, the check reads no node's
    device (the single-device walk, as before); once npu:1 had one, it reads the devices of
    the nodes made before every device's last switch, not of those made after it."""
    from extstream_guard import _autograd
    from tests.guard import npusim

    calls: list[Any] = []

    def counted(node: Any) -> int | None:
        calls.append(node.name())
        return _tagged_device(node)

    monkeypatch.setattr(_autograd, "_node_device", counted)
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext0 = npu.ExternalStream(HANDLE, device=0)
    w0 = npusim.npu_tensor(requires_grad=True, device=0)
    with npu.stream(ext0):
        (w0 * 2).sum().backward()
    (w0 * 3).sum().backward()
    assert calls == []
    side = npu.Stream(device=1)
    w1 = npusim.npu_tensor(requires_grad=True, device=1)
    with npu.stream(side):
        made_in = w1 * 2  # on npu:1's managed stream: passes
    ext1 = npu.ExternalStream(HANDLE + 0x100, device=1)
    with npu.stream(ext1):
        w1 * 3  # a node made under ext1: npu:1's points change
    (w0 * 4).sum().backward()
    assert calls == []  # made after every device's last switch
    (made_in.to("npu:0") * w0).sum().backward()
    assert "MulBackward0" in calls


def test_npu_0_nodes_made_in_npu_1_s_region_in_a_graph_rooted_on_npu_1_pass(
    sim: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin, with the external stream on the root's device: the single-device walk meets the
    copy from npu:0 and judges from there each node on its own device, so the npu:0 node made
    inside ``torch.npu.stream(ext1)`` (on npu:0's managed stream) is not refused (judged
    against npu:1's points, it was)."""
    from extstream_guard import _autograd
    from tests.guard import npusim

    monkeypatch.setattr(_autograd, "_node_device", _tagged_device)
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext1 = npu.ExternalStream(HANDLE, device=1)
    w0 = npusim.npu_tensor(requires_grad=True, device=0)
    w1 = npusim.npu_tensor(requires_grad=True, device=1)
    with npu.stream(ext1):
        made_in = w0 * 2  # on npu:0, under its managed stream
    (made_in.to("npu:1") * w1).sum().backward()
    assert w0.grad is not None and w1.grad is not None


# --- why the simulated tensors stay CPU tensors to C++ (issue 40) ---------------------------------

#: Run in a fresh process: the backend's hooks and device guard can be registered once per
#: process and never taken back, and the simulation leaves the rest of a session without them.
_PYTHON_BACKEND = """
import os
import sys
import threading
import torch
from torch.utils._pytree import tree_map

torch.utils.backend_registration._setup_privateuseone_for_python_backend("npu")


class OnNPU(torch.Tensor):
    # A genuine PrivateUse1 tensor: torch gives Python no allocator for the backend, so the
    # data lives in an inner CPU tensor and every operator runs on it.
    __torch_function__ = torch._C._disabled_torch_function_impl

    @staticmethod
    def __new__(cls, data, index):
        made = torch.Tensor._make_wrapper_subclass(
            cls, data.shape, dtype=data.dtype, strides=data.stride(),
            device=torch.device("npu", index), requires_grad=data.requires_grad,
        )
        made.inner, made.index = data, index
        return made

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        index = next(a.index for a in args if isinstance(a, OnNPU))
        unwrap = lambda v: v.inner if isinstance(v, OnNPU) else v
        result = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
        return tree_map(lambda r: OnNPU(r, index) if isinstance(r, torch.Tensor) else r, result)


for index in (0, 1):
    w = OnNPU(torch.ones(2), index).requires_grad_()
    hidden = w * 2
    seen = []
    hidden.register_hook(lambda g: seen.append(threading.current_thread().name))
    print(index, w.device, w.is_cpu, [str(m.device) for m in hidden.grad_fn._input_metadata])
    try:
        hidden.sum().backward()
        print(index, "ran", seen != [threading.current_thread().name])
    except RuntimeError as error:
        print(index, "failed", "device_ready_queues_" in str(error))
sys.stdout.flush()
os._exit(0)  # the failed graph task's engine state is not torn down: nothing more to learn
"""


def test_torch_s_python_backend_runs_no_device_1_node() -> None:
    """Why the two xfails above stay. A tensor C++ sees on ``npu:<n>`` (torch 2.13's
    ``_setup_privateuseone_for_python_backend``) has torch's own ``.device``, ``is_cpu`` and
    node metadata, but the only device guard Python can register
    (``torch._C._acc.DeviceGuard``) overrides ``type_`` alone: its ``deviceCount()`` is 1, its
    streams are device 0's default, its events do nothing. The engine sizes its device queues
    by that count: a graph with a node on npu:1 stops at an internal assertion before any node
    runs, and npu:0's nodes run on the engine's own thread under a no-op stream guard (none of
    torch_npu's engine syncs, which the hazard tests need)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _PYTHON_BACKEND], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert done.stdout.splitlines() == [
        "0 npu:0 False ['npu:0']",
        "0 ran True",  # on the engine's device thread, not the caller's
        "1 npu:1 False ['npu:1']",
        "1 failed True",
    ], done.stdout
