"""Issue 40, item 8: what the guard's errors say, and where their tracebacks end.

* in raise mode the deferred hazards (XST201, XST203) say what would have happened, not that
  the copy succeeds; XST106 gives torch_npu's policy as the reason (contract 8.8);
* XST203 names the node that crossed;
* an error names the call the user made (``.npu()``, ``.cuda()`` under ``transfer_to_npu``,
  ``Module.to``, ``s.wait_stream(ext)``), not the guarded callee it reached;
* the guard's frames are hidden from pytest's tracebacks (``__tracebackhide__``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, ExternalStreamWarning

HANDLE = 0x7A00_0000


@pytest.fixture
def npu(sim: Any) -> Iterator[Any]:
    extstream_guard.install()
    yield sim.torch_npu.npu


def _defuse(*tensors: Any) -> None:
    from tests.guard.npusim import memory

    for tensor in tensors:
        block = memory.pinned_block(tensor)
        if block is not None:
            block.streams.clear()


def _pinned() -> Any:
    import torch

    return torch.ones(4).pin_memory()


def test_a_refused_copy_is_not_said_to_succeed(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    with npu.stream(ext), pytest.raises(ExternalStreamError) as info:
        _pinned().to("npu", non_blocking=True)
    text = str(info.value)
    assert "The copy succeeds" not in text and "the copy succeeds" not in text
    assert "The guard refused the copy before torch_npu ran it" in text
    assert "Let through, the copy would succeed" in text and "would escape" in text
    extstream_guard.install("warn")
    pinned = _pinned()
    with npu.stream(ext), pytest.warns(ExternalStreamWarning) as caught:
        pinned.to("npu", non_blocking=True)
    _defuse(pinned)
    assert "The copy succeeds" in str(caught[0].message)  # it does: the guard only warned


def test_a_refused_backward_names_the_node_and_says_nothing_ran(npu: Any) -> None:
    from tests.guard import npusim

    ext = npu.ExternalStream(HANDLE)
    weight = npusim.npu_tensor(requires_grad=True)
    with npu.stream(ext):
        loss = (weight * 2).sum()
    with pytest.raises(ExternalStreamError) as info:
        loss.backward()
    text = str(info.value)
    node = loss.grad_fn
    assert f"node {node.name()} (autograd sequence number {node._sequence_nr()}) was " in text
    assert "The guard refused the call before the autograd engine ran" in text
    assert "has already recorded" not in text


def test_graph_capture_is_refused_by_policy_not_the_task_queue(npu: Any) -> None:
    ext = npu.ExternalStream(HANDLE)
    before = npu.current_stream()
    with pytest.raises(ExternalStreamError) as info, npu.graph(npu.NPUGraph(), stream=ext):
        pass
    text = str(info.value)
    assert "by policy" in text and "through torch_npu's task queue" not in text
    assert "the current stream is unchanged" in text
    assert npu.current_stream() == before


def _module_with_a_pinned_weight() -> Any:
    import torch

    module = torch.nn.Linear(2, 2)
    module.weight.data = module.weight.data.pin_memory()
    return module


SPELLINGS: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "Tensor.to": (lambda npu, p: p.to("npu", non_blocking=True), "Tensor.to"),
    ".npu()": (lambda npu, p: p.npu(non_blocking=True), "Tensor.npu"),
    "Module.to": (
        lambda npu, p: _module_with_a_pinned_weight().to("npu", non_blocking=True),
        "Module.to",
    ),
    "s.wait_stream(ext)": (
        lambda npu, p: npu.Stream().wait_stream(npu.current_stream()),
        "Stream.wait_stream (records an event on its argument)",
    ),
    "s.wait_event": (lambda npu, p: npu.current_stream().wait_event(npu.Event()), None),
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_errors_name_the_call_the_user_made(npu: Any, spelling: str) -> None:
    call, name = SPELLINGS[spelling]
    ext = npu.ExternalStream(HANDLE)
    with npu.stream(ext), pytest.raises(ExternalStreamError) as info:
        call(npu, _pinned())
    if name is None:  # the callee itself: named as before
        name = info.value.operation
        assert name.startswith("Stream.wait_event")
    assert info.value.operation == name
    assert f"] {name}: " in str(info.value)


def test_cuda_under_transfer_to_npu_is_named_as_either(npu: Any) -> None:
    from tests import _npu_wheel
    from tests.guard._wheels import wheel_tree
    from tests.guard.npusim import transfer

    ext = npu.ExternalStream(HANDLE)
    applied = transfer.apply(wheel_tree(_npu_wheel.DEFAULT_VERSION))
    try:
        with npu.stream(ext), pytest.raises(ExternalStreamError) as info:
            _pinned().cuda(non_blocking=True)
    finally:
        applied.undo()
    assert info.value.operation.startswith("Tensor.npu (or .cuda")


TRACEBACKS: dict[str, Callable[[Any, Any], Any]] = {
    "compiled wrapper": lambda npu, ext: ext.synchronize(),
    "generic wrapper": lambda npu, ext: npu.graph_task_group_begin(ext),
    "constructor": lambda npu, ext: npu.ExternalStream(0),
    "copy check": lambda npu, ext: _under(npu, ext, lambda: _pinned().to("npu", None, True)),
    "transfer": lambda npu, ext: _under(npu, ext, lambda: _pinned().npu(non_blocking=True)),
}


def _under(npu: Any, ext: Any, call: Callable[[], Any]) -> Any:
    with npu.stream(ext):
        return call()


@pytest.mark.parametrize("case", TRACEBACKS)
def test_pytest_hides_the_guard_s_frames(npu: Any, case: str) -> None:
    ext = npu.ExternalStream(HANDLE)
    with pytest.raises(ExternalStreamError) as info:
        TRACEBACKS[case](npu, ext)
    shown = info.traceback.filter(info)
    names = [entry.frame.f_globals.get("__name__", "") for entry in shown]
    assert not [name for name in names if name.startswith("extstream_guard")], names
    everything = [entry.frame.f_globals.get("__name__", "") for entry in info.traceback]
    assert any(name.startswith("extstream_guard") for name in everything)  # there, hidden


def test_warn_mode_still_points_at_the_users_line(npu: Any) -> None:
    extstream_guard.install("warn")
    ext = npu.ExternalStream(HANDLE)
    with contextlib.suppress(RuntimeError), pytest.warns(ExternalStreamWarning) as caught:
        ext.synchronize()
    assert caught[0].filename == __file__
