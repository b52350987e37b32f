"""XST203 after issue 31: from what the graph says, against the stream really current.

Each case runs over the simulated engine, whose nodes carry their own streams: a refusal the
guard misses shows up as torch_npu's X06/X07 (and the ``sim`` fixture fails the test if the
freed gradient would have aborted the process), a false refusal as an ``ExternalStreamError``
where the engine would have run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError
from extstream_lint.contract import native_not_supported

HANDLE = 0x7A00_0000
WAIT = native_not_supported("LaunchWaitEventTask")
RECORD = native_not_supported("LaunchRecordEventTask")


@pytest.fixture
def npu(sim: Any) -> Iterator[Any]:
    extstream_guard.install()
    yield sim.torch_npu.npu


def _weight() -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor(requires_grad=True)


def test_graph_built_partly_in_the_region_backward_after(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        hidden = weight * 2
    loss = hidden.sum()  # the root node is made outside: only the graph says where h was made
    with pytest.raises(ExternalStreamError) as info:
        loss.backward()
    assert info.value.code == "XST203" and str(info.value).startswith(WAIT)
    assert info.value.stream_id == ext.stream_id and weight.grad is None
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        import torch

        torch.autograd.grad(loss, weight)


def test_graph_built_partly_outside_backward_in_the_region(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    hidden = weight * 2
    with npu.stream(ext):
        loss = hidden.sum()  # the root node is made in the region, its input outside
        with pytest.raises(ExternalStreamError) as info:
            loss.backward()
    assert info.value.code == "XST203" and str(info.value).startswith(RECORD)
    assert "mixes" in str(info.value)


def test_whole_graph_in_the_region_with_older_leaves_passes(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        loss = ((weight * 2) * 3).sum()
        loss.backward()
    assert float(weight.grad[0]) == 6.0


def test_backward_in_a_sync_launch_context_inside_the_region(npu: Any) -> None:
    """``SyncLaunchStream``'s context is torch.Stream's C ``__enter__``: a switch below the
    guard's wrappers. The stream really current at the backward is the sync-launch stream."""
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        loss = (weight * 2).sum()
        with npu.SyncLaunchStream(), pytest.raises(ExternalStreamError) as info:
            loss.backward()
    assert info.value.code == "XST203" and str(info.value).startswith(WAIT)


def test_graph_made_and_run_in_a_sync_launch_context_passes(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext), npu.SyncLaunchStream():
        loss = (weight * 2).sum()  # made under the sync-launch stream: not judged as ext
        loss.backward()
    assert float(weight.grad[0]) == 2.0


def test_a_switch_made_in_cpp_makes_the_nodes_since_the_last_seen_one_unknown(
    npu: Any, sim: Any
) -> None:
    """A switch no Python wrapper sees (a C++ extension calling ``setCurrentNPUStream``) is
    found at the backward: the stream really current is not the one the last seen switch
    left. When in between it happened is not known, so those nodes are not judged (no false
    refusal); nodes before the last seen switch still are."""
    from tests.guard.npusim import fake_c

    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    before = (weight * 2).sum()  # made under the default stream, seen as such
    with npu.stream(ext):
        fake_c.exchange_stream(0, 0)  # C++ puts the default stream back, unseen
        loss = (weight * 2).sum()
        loss.backward()  # default stream on both sides: fine, and not refused
        with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
            fake_c.exchange_stream(ext.stream_id, 0)  # and C++ makes ext current again
            before.backward()  # the graph from before the region, under ext: X06
    assert float(weight.grad[0]) == 2.0


def test_set_stream_bound_before_arming_is_seen(npu: Any) -> None:
    set_stream = npu.set_stream  # bound after install, before the first external stream
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    set_stream(ext)
    try:
        (weight * 2).sum().backward()  # no boundary crossed: not refused
        loss = (weight * 2).sum()
    finally:
        set_stream(npu.default_stream())
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        loss.backward()
    assert float(weight.grad[0]) == 2.0


def test_external_stream_current_when_a_later_one_arms(sim: Any) -> None:
    npu = sim.torch_npu.npu
    early = npu.ExternalStream(HANDLE)  # made before the guard: not seen
    extstream_guard.install()
    npu.set_stream(early)  # nothing armed yet: not seen either
    try:
        npu.ExternalStream(HANDLE + 0x1000)  # arms, and reads what is current
        weight = _weight()
        loss = (weight * 2).sum()
    finally:
        npu.set_stream(npu.default_stream())
    with pytest.raises(ExternalStreamError) as info:
        loss.backward()
    assert info.value.stream_id == early.stream_id


def test_transfer_to_npu_cuda_set_stream_region(npu: Any) -> None:
    """``transfer_to_npu`` copies torch_npu.npu's functions onto ``torch.cuda`` at its import
    (before any external stream): ``torch.cuda.set_stream`` is a binding the guard never
    wrapped, and it still reaches ``torch_npu._C._npu_setStream``."""
    import types

    cuda = types.SimpleNamespace(set_stream=npu.set_stream, current_stream=npu.current_stream)
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    cuda.set_stream(ext)
    try:
        loss = (weight * 2).sum()
        loss.backward()  # no boundary crossed
        kept = (weight * 3).sum()
    finally:
        cuda.set_stream(npu.default_stream())
    assert float(weight.grad[0]) == 2.0
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        kept.backward()


def test_graphs_that_never_met_an_external_stream_pass(npu: Any) -> None:
    import torch

    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        pass
    (weight * 2).sum().backward()
    with npu.stream(npu.Stream()):
        loss = (weight * 2).sum()
    loss.backward()  # managed streams: the engine syncs them itself
    host = torch.ones(4, requires_grad=True)
    with npu.stream(ext):
        cpu_loss = (host * 2).sum()
    cpu_loss.backward()  # a CPU graph: no NPU stream sync
    assert float(weight.grad[0]) == 4.0 and float(host.grad[0]) == 2.0


#: The number torch gives nodes it does not order (``AccumulateGrad``: ``UINT64_MAX``).
UNNUMBERED = (1 << 64) - 1


def _unnumbered(tensor: Any) -> Any:
    """``tensor`` with its ``grad_fn`` renumbered ``UINT64_MAX``, an interior node whose
    number says nothing about when or in which thread its inputs were made."""
    tensor.grad_fn._set_sequence_nr(UNNUMBERED)
    assert tensor.grad_fn._sequence_nr() == UNNUMBERED
    return tensor


def test_the_walk_goes_through_an_unnumbered_interior_node(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        hidden = weight * 2
    loss = _unnumbered(hidden + 1).sum()  # its input, made in the region, is still judged
    with pytest.raises(ExternalStreamError) as info:
        loss.backward()
    assert info.value.code == "XST203" and str(info.value).startswith(WAIT)


def test_an_unnumbered_interior_node_over_a_graph_made_outside_passes(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        (weight * 5).sum().backward()  # the thread had a region: the walk is not skipped
    hidden = weight * 2
    loss = _unnumbered(hidden + 1).sum()
    loss.backward()
    assert float(weight.grad[0]) == 7.0


def test_a_region_after_a_judged_backward_is_seen(npu: Any) -> None:
    """What a backward check read of the thread's switch points is kept until they change:
    the next region changes them, and its nodes are judged from them, not from before."""
    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    with npu.stream(ext):
        (weight * 2).sum().backward()
    (weight * 3).sum().backward()  # judged outside, after a region: passes
    with npu.stream(ext):
        hidden = weight * 2
    with pytest.raises(ExternalStreamError) as info:
        hidden.sum().backward()
    assert info.value.code == "XST203" and str(info.value).startswith(WAIT)
    assert float(weight.grad[0]) == 5.0


def test_a_thread_s_first_region_after_its_first_backward_is_seen(npu: Any) -> None:
    """A thread's first backward, before it ever switched streams, finds nothing to judge;
    its first region then starts its switch points, and what it made there is judged."""
    import threading

    ext = npu.ExternalStream(HANDLE)
    weight = _weight()
    box: dict[str, Any] = {}

    def worker() -> None:
        (weight * 3).sum().backward()  # nothing external ever current in this thread
        with npu.stream(ext):
            hidden = weight * 2
        try:
            hidden.sum().backward()
        except ExternalStreamError as error:
            box["error"] = error

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert box["error"].code == "XST203" and str(box["error"]).startswith(WAIT)
    assert float(weight.grad[0]) == 3.0
