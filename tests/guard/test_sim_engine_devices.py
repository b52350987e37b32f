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
    reason="the guard reads the switch history of the root's device only: a node made on "
    "npu:1 under its external stream, in a graph rooted on npu:0, is not judged "
    "(docs/guard.md, Limitations)",
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
