"""XST203 with graphs built partly in another thread (issue 31: unknown for other threads' nodes).

Autograd sequence numbers count per thread, so a number alone does not say which thread made a
node. The guard treats a node as another thread's (unknown: never refused, never cleared) when
its number is at or above the calling thread's counter, when it is not below its consumer's (a
thread's inputs are older than its nodes), or when another thread the guard saw is known to
have made that number under an external stream other than the caller's state then. Each case
runs in fresh threads, so that the numbers of the two threads collide, over the simulated
engine, whose nodes carry their own streams: a miss shows up as torch_npu's X06/X07 (and the
``sim`` fixture fails on an abort), a false refusal as an ``ExternalStreamError`` where the
engine runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError

HANDLE = 0x7A00_0000


@pytest.fixture
def npu(sim: Any) -> Iterator[Any]:
    extstream_guard.install()
    yield sim.torch_npu.npu


def _run(fn: Callable[[], Any]) -> Any:
    """``fn()`` in a fresh thread (its autograd numbers start at 0); its result or error."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # re-raised in the calling thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")


def _leaf() -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor(requires_grad=True)


def _sequence_nr() -> int:
    import torch

    return int(torch._C._autograd._get_sequence_nr())


def test_an_unseen_worker_s_nodes_above_the_consumer_are_not_judged(npu: Any) -> None:
    """A worker the guard never saw (no stream switch) made more nodes than the caller, whose
    first nodes were made under ``ext``, then the caller's root. The worker's last node is
    not below its consumer's number: another thread's, so it and its inputs are unknown
    (before, the walk went on below it and judged the worker's low numbers as the caller's
    ext nodes)."""
    ext = npu.ExternalStream(HANDLE)
    weight, other = _leaf(), _leaf()

    def caller() -> Any:
        with npu.stream(ext):
            kept = (other * 2) * 3  # the caller's first numbers, under ext

        def worker() -> Any:
            return weight * 1 * 2 * 3 * 4 * 5  # the worker's, more of them, default stream

        hidden = _run(worker)
        loss = hidden.sum()  # the caller's next number, below the worker's last
        loss.backward()
        return kept

    _run(caller)
    assert float(weight.grad[0]) == 120.0


def test_the_caller_s_own_crossing_nodes_are_still_judged_in_a_mixed_graph(npu: Any) -> None:
    """A worker the guard saw, and the caller's own node made under ``ext`` (numbered above
    every number the worker was seen to reach) in one graph, backward under the default stream:
    the caller's node crosses, and is refused."""
    ext = npu.ExternalStream(HANDLE)
    weight, other = _leaf(), _leaf()

    def caller() -> None:
        warm = [other * k for k in range(5)]  # default stream
        with npu.stream(ext):
            hidden = other * 2  # under ext, above every number the worker reaches

        def worker() -> Any:
            with npu.stream(npu.Stream()):
                return weight * 5  # the worker's first numbers

        far = _run(worker)
        loss = hidden.sum() + far.sum()
        with pytest.raises(ExternalStreamError) as info:
            loss.backward()
        assert info.value.code == "XST203" and info.value.stream_id == ext.stream_id
        del warm

    _run(caller)
    assert weight.grad is None and other.grad is None


def test_the_arming_thread_s_numbers_do_not_hide_a_young_thread_s_crossing(sim: Any) -> None:
    """The thread that armed the checks has passed a young thread's numbers long before, under
    a managed stream: a collision with a managed number is read as the caller's, so the young
    thread's forward under ``ext`` and backward outside it is still refused."""
    import torch

    npu = sim.torch_npu.npu
    warm = [torch.ones(1, requires_grad=True) * k for k in range(64)]  # this thread's numbers
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)  # arms here: this thread's record starts high
    other = _leaf()

    def caller() -> None:
        with npu.stream(ext):
            hidden = (other * 2) * 3
        with pytest.raises(ExternalStreamError) as info:
            hidden.sum().backward()
        assert info.value.code == "XST203"

    _run(caller)
    assert other.grad is None and len(warm) == 64


def test_a_seen_worker_s_external_nodes_in_the_caller_s_managed_numbers_are_unknown(
    npu: Any,
) -> None:
    """The worker summed, under the external stream the caller backs under, what the caller
    made under it. The worker's numbers are among the caller's from before its region
    (managed), so by the caller's record alone the root crossed (a false refusal before);
    the worker's record says those numbers were made under ``ext``: unknown, nothing refused,
    and the engine agrees (every node under ``ext``)."""
    ext = npu.ExternalStream(HANDLE)
    weight, other = _leaf(), _leaf()

    def caller() -> None:
        warm = [other * k for k in range(12)]  # default stream
        with npu.stream(ext):
            hidden = weight * 2

            def worker() -> Any:
                with npu.stream(ext):
                    return (hidden * 1 * 1 * 1).sum()

            loss = _run(worker)
            assert loss.grad_fn._sequence_nr() < _sequence_nr()  # among the caller's numbers
            loss.backward()
        del warm

    _run(caller)
    assert float(weight.grad[0]) == 2.0


def _parallel_apply_shape(npu: Any, ext: Any, with_own_crossing: bool) -> None:
    """What ``DataParallel`` does, in the caller: its first numbers under ``ext`` (an earlier
    region), then, outside it, scatter and broadcast (the caller's later numbers), a worker
    that enters the caller's current stream as ``parallel_apply``'s does and runs the replica
    (its numbers from 0: among the caller's ``ext`` numbers), and the gather and loss in the
    caller, backward outside the region."""
    weight, inp, early = _leaf(), _leaf(), _leaf()

    def caller() -> None:
        with npu.stream(ext):
            kept = early * 1  # (a leaf of its own: its accumulator's stream is ext)
            for _k in range(12):
                kept = kept * 1  # the caller's numbers 0..12, under ext
        scattered, replica = inp * 1, weight * 1  # scatter / Broadcast: the caller's, later
        stream = npu.current_stream()  # parallel_apply: the caller's current stream

        def worker() -> Any:
            with stream:
                return (scattered * replica).relu() * 2  # numbered 0, 1, 2

        out = _run(worker)
        assert out.grad_fn._sequence_nr() < 12  # among the caller's ext numbers
        loss = out.sum()
        if with_own_crossing:
            for _k in range(8):
                kept = kept * 1  # outside: keeps kept's ext node out of the worker's numbers
            with npu.stream(ext):
                own = early * 3  # the caller's, above every number the worker reached
            loss = loss + own.sum()
            with pytest.raises(ExternalStreamError) as info:
                loss.backward()
            assert info.value.code == "XST203"
        else:
            loss.backward()  # a false XST203 before (issue 40, item 6)
        del kept

    _run(caller)
    if not with_own_crossing:
        assert float(weight.grad[0]) == 2.0


@pytest.mark.parametrize("arming", ["fresh", "long-lived"])
def test_a_worker_s_managed_nodes_among_the_caller_s_external_numbers_pass(
    npu: Any, arming: str
) -> None:
    warm = _warm(arming)
    _parallel_apply_shape(npu, npu.ExternalStream(HANDLE), with_own_crossing=False)
    del warm


@pytest.mark.parametrize("arming", ["fresh", "long-lived"])
def test_the_caller_s_own_crossing_beside_a_worker_s_graph_is_refused(
    npu: Any, arming: str
) -> None:
    """The caller's own node, whose inputs are its own, stays judged even where the thread
    that armed the checks passed its number under a managed stream long before."""
    warm = _warm(arming)
    _parallel_apply_shape(npu, npu.ExternalStream(HANDLE), with_own_crossing=True)
    del warm


def _warm(arming: str) -> list[Any]:
    """``long-lived``: the thread that arms the checks has made 64 nodes before."""
    import torch

    count = 64 if arming == "long-lived" else 0
    return [torch.ones(1, requires_grad=True) * k for k in range(count)]


# --- the engine's device thread (issue 40: the simulation ran hooks in the caller's thread) ---


@pytest.mark.parametrize("region", ["external", "managed"])
def test_a_hook_s_copy_on_the_engine_thread_is_judged_there(npu: Any, region: str) -> None:
    """An NPU graph's hooks run on the engine's thread for the device, under the node's
    stream: a pinned copy a hook makes while the node's stream is external is refused there,
    and the error reaches ``backward()``'s caller; on a managed stream it passes."""
    stream = npu.ExternalStream(HANDLE) if region == "external" else npu.Stream()
    weight = _leaf()
    threads: list[str] = []

    def log_activation(grad: Any) -> None:
        threads.append(threading.current_thread().name)
        hidden.detach().to("cpu", non_blocking=True)

    with npu.stream(stream):
        hidden = weight * 2
        hidden.register_hook(log_activation)
        loss = (hidden * 3).sum()
        if region == "external":
            with pytest.raises(ExternalStreamError, match=r"\[XST201\].*npu:0"):
                loss.backward()
        else:
            loss.backward()
            assert float(weight.grad[0]) == 6.0
    assert threads and threads[0] != threading.current_thread().name
