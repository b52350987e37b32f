"""Issue 40, item 7: the copy operators called through ``torch.ops.aten``.

``torch.ops.aten._to_copy(p, device="npu", non_blocking=True)`` from pinned memory while an
external stream is current reaches torch_npu's copy kernel past ``Tensor.to`` / ``copy_``: the
pinned block records the external stream and freeing it aborts the process (the simulation's
dispatcher sends these operators to its kernels, as torch's does to torch_npu's). Every
spelling of the family is refused (the packets and their overloads: ``_to_copy``, ``to``,
``copy_``, ``copy``, ``_copy_from``), with ``transfer_to_npu`` applied before the guard, after
it armed, or not at all; what is not a hazard goes through; the operator objects stay the same
objects, instances of torch's classes, and get their class back at uninstall.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError

HANDLE = 0x7A00_0000
ORDERS = ("no-transfer", "transfer-first", "transfer-after-arming")


def _npu(values: int = 4) -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor([0.0] * values)


#: Every spelling of the family: (id, call on a pinned host tensor ``p``).
SPELLINGS: dict[str, Callable[[Any], Any]] = {
    "_to_copy": lambda p: _ops()._to_copy(p, device="npu", non_blocking=True),
    "_to_copy.default": lambda p: _ops()._to_copy.default(p, device="npu", non_blocking=True),
    "to": lambda p: _ops().to(p, "npu", non_blocking=True),
    "to.device": lambda p: _ops().to.device(p, _device("npu"), p.dtype, True),
    "to.dtype_layout": lambda p: _ops().to.dtype_layout(p, device="npu", non_blocking=True),
    "to.other": lambda p: _ops().to.other(p, _npu(), True),
    "copy_": lambda p: _ops().copy_(_npu(), p, True),
    "copy_.default": lambda p: _ops().copy_.default(_npu(), p, non_blocking=True),
    "copy": lambda p: _ops().copy(_npu(), p, True),
    "_copy_from": lambda p: _ops()._copy_from(p, _npu(), True),
    "device-to-host copy_": lambda p: _ops().copy_(p, _npu(), True),
}


def _ops() -> Any:
    import torch

    return torch.ops.aten


def _device(spelling: str) -> Any:
    import torch

    return torch.device(spelling)


@pytest.fixture
def tree() -> Any:
    from tests import _npu_wheel
    from tests.guard._wheels import wheel_tree

    return wheel_tree(_npu_wheel.DEFAULT_VERSION)


@pytest.fixture(params=ORDERS)
def armed(request: Any, sim: Any, tree: Any) -> Iterator[Any]:
    """The guard installed and armed, ``transfer_to_npu`` applied in each order; yields
    ``(npu, ext)``."""
    from tests.guard.npusim import transfer

    order = request.param
    applied = transfer.apply(tree) if order == "transfer-first" else None
    npu = sim.torch_npu.npu
    try:
        extstream_guard.install()
        ext = npu.ExternalStream(HANDLE)
        late = transfer.apply(tree) if order == "transfer-after-arming" else None
        try:
            yield npu, ext
        finally:
            if late is not None:
                late.undo()
            extstream_guard.uninstall()
    finally:
        if applied is not None:
            applied.undo()


def _pinned() -> Any:
    import torch

    return torch.ones(4).pin_memory()


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_each_spelling_is_refused_in_a_region(armed: Any, spelling: str) -> None:
    npu, ext = armed
    p = _pinned()
    with npu.stream(ext), pytest.raises(ExternalStreamError) as caught:
        SPELLINGS[spelling](p)
    assert caught.value.code == "XST201"
    assert "torch.ops.aten." in str(caught.value)
    del p
    gc.collect()  # nothing recorded: the sim fixture sees no abort


@pytest.mark.parametrize("spelling", ["_to_copy", "copy_"])
def test_without_the_guard_the_same_call_aborts(sim: Any, spelling: str) -> None:
    """What the guard prevents: the simulated torch_npu takes the call and aborts at the free."""
    from tests.guard.npusim import memory

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)
    aborts: list[str] = []
    memory.terminate = aborts.append
    p = _pinned()
    with npu.stream(ext):
        result = SPELLINGS[spelling](p)
    assert result.device.type == "npu"
    del p
    gc.collect()
    assert aborts and "External" in aborts[0]


def _negatives(npu: Any, ext: Any) -> dict[str, Callable[[], Any]]:
    import torch

    aten = torch.ops.aten
    return {
        "blocking": lambda: _in(npu, ext, lambda: aten._to_copy(_pinned(), device="npu")),
        "pageable": lambda: _in(
            npu, ext, lambda: aten._to_copy(torch.ones(4), device="npu", non_blocking=True)
        ),
        "host dtype": lambda: _in(
            npu, ext, lambda: aten._to_copy(_pinned(), dtype=torch.float64, non_blocking=True)
        ),
        "outside a region": lambda: aten._to_copy(_pinned(), device="npu", non_blocking=True),
        "managed stream": lambda: _in(
            npu, npu.Stream(), lambda: aten.copy_(_npu(), _pinned(), True)
        ),
        "non-contiguous host": lambda: _in(
            npu, ext, lambda: aten.copy_(_npu(2), _pinned()[::2], True)
        ),
        "host to host": lambda: _in(npu, ext, lambda: aten.copy_(torch.zeros(4), _pinned(), True)),
    }


def _in(npu: Any, stream: Any, call: Callable[[], Any]) -> Any:
    with npu.stream(stream):
        return call()


@pytest.mark.parametrize(
    "case",
    ["blocking", "pageable", "host dtype", "outside a region", "managed stream",
     "non-contiguous host", "host to host"],
)  # fmt: skip
def test_what_is_no_hazard_goes_through(armed: Any, case: str) -> None:
    npu, ext = armed
    result = _negatives(npu, ext)[case]()
    assert result is not None
    gc.collect()


def test_cuda_is_not_remapped_for_operators(armed: Any) -> None:
    """``transfer_to_npu`` remaps tensor methods, not ``torch.ops``: an operator given
    ``cuda`` fails as torch fails (no CUDA), not as an NPU hazard."""
    import torch

    npu, ext = armed
    with npu.stream(ext), pytest.raises(RuntimeError) as caught:
        torch.ops.aten._to_copy(_pinned(), device="cuda", non_blocking=True)
    assert not isinstance(caught.value, ExternalStreamError)


def test_operator_objects_keep_their_identity(sim: Any) -> None:
    import torch

    packet = torch.ops.aten._to_copy
    default = packet.default
    before = type(packet), type(default)
    extstream_guard.install()
    assert (type(packet), type(default)) == before  # nothing before an external stream
    ext = sim.torch_npu.npu.ExternalStream(HANDLE)
    assert ext is not None
    assert torch.ops.aten._to_copy is packet and packet.default is default
    assert type(default) is not before[1]  # re-classed once armed ...
    assert isinstance(packet, torch._ops.OpOverloadPacket)  # ... still torch's kinds
    assert isinstance(default, torch._ops.OpOverload)
    assert default._schema.name == "aten::_to_copy"
    extstream_guard.uninstall()
    assert (type(packet), type(default)) == before


def test_uninstall_keeps_a_class_given_on_top(sim: Any) -> None:
    """Another library re-classing an operator after the guard armed keeps its class."""
    import torch

    default = torch.ops.aten.copy_.default
    extstream_guard.install()
    sim.torch_npu.npu.ExternalStream(HANDLE)
    guarded = type(default)
    theirs = type("OpOverload", (guarded,), {})
    default.__class__ = theirs
    try:
        extstream_guard.uninstall()
        assert type(default) is theirs
    finally:
        default.__class__ = guarded.__mro__[1]


def test_torch_s_own_operators_behave_as_without_the_guard(sim: Any) -> None:
    """Over torch's own kernels (the simulation's dispatcher taken out): results, and the
    ``func`` a mode is handed, are what they are without the guard."""
    import torch
    from torch.overrides import TorchFunctionMode

    from tests.guard.npusim import kernels

    class Seen(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.funcs: list[Any] = []

        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None):
            self.funcs.append(func)
            return func(*args, **(kwargs or {}))

    kernels.deactivate()
    try:
        extstream_guard.install()
        sim.torch_npu.npu.ExternalStream(HANDLE)  # armed
        source = torch.arange(4.0)
        with Seen() as seen:
            wider = torch.ops.aten._to_copy.default(source, dtype=torch.float64)
            target = torch.zeros(4)
            torch.ops.aten.copy_(target, source)
        assert wider.dtype == torch.float64 and wider.tolist() == source.tolist()
        assert target.tolist() == source.tolist()
        assert seen.funcs[0] is torch.ops.aten._to_copy.default
        extstream_guard.uninstall()
    finally:
        kernels.activate()
