"""Issue 28, part 4: the shapes the linter's provenance work targets, at run time.

The guard judges where the hazard happens, not how the code was spelled: XST203 at the engine
entry every ``backward()`` / ``autograd.grad`` shares, from the graph the roots carry; XST112 and
XST201 in ``Tensor.to`` / ``copy_``, from the devices, the ``non_blocking`` flag torch parses,
the current stream of each device touched and the host side's pinnedness. So each spelling of
issue 28's "Why" is caught where its hazard is, whatever computed the loss or the buffer, with
positive and negative twins: forward and backward under the same external stream, a managed
stream, pageable memory, a copy that does not touch the device whose current stream is
external. Over the simulated torch_npu, whose engine and allocator fail (X06/X07, aborts at free)
where torch_npu does: a miss makes the ``sim`` fixture fail.
"""

from __future__ import annotations

import functools
import types
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


def _leaf() -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor(requires_grad=True)


def _input() -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor((1.0, 2.0, 3.0, 4.0))


# --- XST203: how the loss was computed, and who calls backward ------------------------------


class _Trainer:
    """``self.model(x)``, ``self.loss_fn(logits, y)``: the loss through attributes."""

    def __init__(self, weight: Any) -> None:
        self.model = lambda x: x * weight
        self.loss_fn = lambda logits, y: ((logits - y) * (logits - y)).sum()


class _Model:
    """``model(**batch).loss``, and a model returning ``(loss, aux)``."""

    def __init__(self, weight: Any) -> None:
        self.weight = weight

    def __call__(self, x: Any) -> Any:
        return types.SimpleNamespace(loss=(x * self.weight).sum())

    def pair(self, x: Any) -> tuple[Any, Any]:
        out = x * self.weight
        return out.sum(), out.detach()


class _Scaler:
    """What ``GradScaler.scale`` does to a loss: one multiplication, made where it is called."""

    def scale(self, loss: Any) -> Any:
        return loss * 1024.0


def _helper_loss(weight: Any, x: Any) -> Any:
    return (x * weight).sum()


def _helper_backward(loss: Any) -> None:
    loss.backward()


def _grad(v: Any, weight: Any) -> None:
    import torch

    (grad,) = torch.autograd.grad(outputs=[v.sum()], inputs=[weight])
    assert float(grad[0]) == 1.0


def _loop(weight: Any, x: Any) -> Any:
    total = None
    for k in range(3):
        term = (x * weight * float(k + 1)).sum()
        total = term if total is None else total + term
    return total


Forward = Callable[[Any, Any], Any]
Backward = Callable[[Any, Any], Any]

#: name -> (forward(weight, x), run in the forward region; backward(result, weight)).
SHAPES: dict[str, tuple[Forward, Backward]] = {
    "self.model(x)": (lambda w, x: _Trainer(w).model(x).sum(), lambda r, w: r.backward()),
    "self.loss_fn(logits, y)": (
        lambda w, x: _Trainer(w).loss_fn(_Trainer(w).model(x), x),
        lambda r, w: r.backward(),
    ),
    "model(**batch).loss": (lambda w, x: _Model(w)(**{"x": x}).loss, lambda r, w: r.backward()),
    "scaler.scale(loss).backward()": (
        lambda w, x: (x * w).sum(),
        lambda r, w: _Scaler().scale(r).backward(),
    ),
    "(a + b).backward()": (
        lambda w, x: ((x * w).sum(), (x * w * 2.0).sum()),
        lambda r, w: (r[0] + r[1]).backward(),
    ),
    "loss.sum().backward()": (lambda w, x: x * w, lambda r, w: r.sum().backward()),
    "unpacked tuple": (lambda w, x: _Model(w).pair(x), lambda r, w: r[0].backward()),
    "loop accumulation": (_loop, lambda r, w: r.backward()),
    "helper-returned loss": (_helper_loss, lambda r, w: r.backward()),
    "helper calling backward()": (_helper_loss, lambda r, w: _helper_backward(r)),
    "autograd.grad(outputs=[v.sum()])": (lambda w, x: x * w, _grad),
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_forward_under_ext_backward_outside_is_refused(npu: Any, shape: str) -> None:
    forward, backward = SHAPES[shape]
    ext = npu.ExternalStream(HANDLE)
    weight, x = _leaf(), _input()
    with npu.stream(ext):
        result = forward(weight, x)
    with pytest.raises(ExternalStreamError) as info:
        backward(result, weight)
    assert info.value.code == "XST203" and info.value.stream_id == ext.stream_id
    assert weight.grad is None  # refused before the engine ran


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_forward_and_backward_under_the_same_external_stream_pass(npu: Any, shape: str) -> None:
    forward, backward = SHAPES[shape]
    ext = npu.ExternalStream(HANDLE)
    weight, x = _leaf(), _input()
    with npu.stream(ext):
        backward(forward(weight, x), weight)


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_forward_under_a_managed_stream_backward_outside_passes(npu: Any, shape: str) -> None:
    forward, backward = SHAPES[shape]
    npu.ExternalStream(HANDLE)  # armed
    weight, x = _leaf(), _input()
    with npu.stream(npu.Stream()):
        result = forward(weight, x)
    backward(result, weight)


def test_forward_outside_backward_under_ext_is_refused(npu: Any) -> None:
    """The other direction (X06 at once on hardware), through a helper and a scaler."""
    ext = npu.ExternalStream(HANDLE)
    weight, x = _leaf(), _input()
    loss = _helper_loss(weight, x)
    with npu.stream(ext), pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        _helper_backward(_Scaler().scale(loss))


# --- XST112: on which device the external stream is current ---------------------------------


@pytest.fixture
def link(npu: Any) -> Iterator[Any]:
    """``set_stream(link)`` with ``link`` an external stream on npu:1: npu:1's current stream
    is external, npu:0's is not (contract section 5)."""
    npu.set_device(1)
    external = npu.ExternalStream(HANDLE + 0x1000)
    npu.set_device(0)
    npu.set_stream(external)
    npu.set_device(0)
    try:
        yield external
    finally:
        npu.set_stream(npu.default_stream(1))
        npu.set_device(0)


def test_link_on_npu1_is_current_there_only(npu: Any, link: Any) -> None:
    import torch

    from extstream_guard import current_is_external

    assert npu.current_stream(1).stream_id == link.stream_id
    assert not current_is_external() and torch.npu.current_device() == 0


class _Devices:
    def __init__(self) -> None:
        self.devices = ["npu:0", "npu:1"]


@pytest.mark.parametrize(
    "spelling",
    ["to(device + 1)", "self.devices[i]", "npu(1)", "copy_ into npu:1", "to npu:0 from npu:1"],
)
def test_copies_touching_the_linked_device_are_refused(npu: Any, link: Any, spelling: str) -> None:
    from tests.guard import npusim

    device, i = 0, 1
    src = npusim.npu_tensor()
    calls = {
        "to(device + 1)": lambda: src.to(f"npu:{device + 1}"),
        "self.devices[i]": lambda: src.to(_Devices().devices[i]),
        "npu(1)": lambda: src.npu(1),
        "copy_ into npu:1": lambda: npusim.npu_tensor(device=1).copy_(src),
        "to npu:0 from npu:1": lambda: npusim.npu_tensor(device=1).to("npu:0"),
    }
    with pytest.raises(ExternalStreamError) as info:
        calls[spelling]()
    assert info.value.code == "XST112" and info.value.device == 1


def test_copies_not_touching_the_linked_device_pass(npu: Any, link: Any) -> None:
    import torch

    from tests.guard import npusim

    src = npusim.npu_tensor()
    assert src.to("npu:0", copy=True).device == torch.device("npu", 0)
    npusim.npu_tensor().copy_(src)
    pinned = torch.ones(4).pin_memory()
    assert pinned.to("npu:0", non_blocking=True).device == torch.device("npu", 0)
    assert src.to("cpu").device.type == "cpu"


def test_the_same_copies_with_a_managed_stream_on_npu1_pass(npu: Any) -> None:
    from tests.guard import npusim

    npu.ExternalStream(HANDLE)  # armed
    npu.set_device(1)
    managed = npu.Stream()
    npu.set_device(0)
    npu.set_stream(managed)
    npu.set_device(0)
    try:
        npusim.npu_tensor().to("npu:1")
        npusim.npu_tensor(device=1).copy_(npusim.npu_tensor())
    finally:
        npu.set_stream(npu.default_stream(1))
        npu.set_device(0)


# --- XST201: how the flag and the pinned buffer got there -----------------------------------


class _Holder:
    """A pinned staging buffer held by an object (of another module, in issue 28)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.buffer = make()


def _pinned_buffers() -> dict[str, Callable[[], Any]]:
    import torch

    return {
        "partial(torch.zeros, pin_memory=True)": functools.partial(torch.zeros, 4, pin_memory=True),
        "pin_memory() held by an object": lambda: (
            _Holder(lambda: torch.ones(4).pin_memory()).buffer
        ),
    }


FLAGS: dict[str, Callable[[Any], Any]] = {
    "to(**{'non_blocking': True})": lambda b: b.to("npu", **{"non_blocking": True}),
    "npu(**opts)": lambda b: b.npu(**dict(non_blocking=True)),
    "copy_(b, **opts)": lambda b: _copy_into_npu(b, **{"non_blocking": True}),
}


def _copy_into_npu(buffer: Any, **opts: Any) -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor().copy_(buffer, **opts)


@pytest.mark.parametrize("flag", FLAGS, ids=list(FLAGS))
@pytest.mark.parametrize("buffer", ["partial(torch.zeros, pin_memory=True)",
                                    "pin_memory() held by an object"])  # fmt: skip
def test_pinned_non_blocking_copies_under_ext_are_refused(npu: Any, flag: str, buffer: str) -> None:
    ext = npu.ExternalStream(HANDLE)
    host = _pinned_buffers()[buffer]()
    assert host.is_pinned()
    with npu.stream(ext), pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
        FLAGS[flag](host)


@pytest.mark.parametrize("flag", FLAGS, ids=list(FLAGS))
def test_pageable_twins_pass(npu: Any, flag: str) -> None:
    import torch

    ext = npu.ExternalStream(HANDLE)
    host = torch.zeros(4, pin_memory=False)
    with npu.stream(ext):
        FLAGS[flag](host)


class _Base:
    """Makes an external stream its working stream."""

    def __init__(self, npu: Any) -> None:
        self.stream = npu.ExternalStream(HANDLE)


class _Managed(_Base):
    """Replaces it with a torch_npu-managed stream (the linter flagged copies under it)."""

    def __init__(self, npu: Any) -> None:
        super().__init__(npu)
        self.stream = npu.Stream()


def test_subclass_replacing_the_external_stream_with_a_managed_one_passes(npu: Any) -> None:
    import torch

    host = torch.ones(4).pin_memory()
    with npu.stream(_Managed(npu).stream):
        host.to("npu", non_blocking=True)
    with npu.stream(_Base(npu).stream), pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
        host.to("npu", non_blocking=True)
