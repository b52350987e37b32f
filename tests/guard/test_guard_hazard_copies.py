"""The copy checks after issue 31: what torch does is unchanged, every spelling is parsed.

* identity: ``LazyLinear`` / ``UninitializedParameter`` (which allow only the original
  ``Tensor.to`` / ``copy_``), a tensor subclass comparing ``func`` with the originals it
  captured, and ``mock.patch`` of the same methods inside and across regions;
* parsing as torch parses: positional ``non_blocking`` / ``copy``, integer devices, ``cuda``
  under ``transfer_to_npu``, malformed calls failing as they fail without the guard;
* patched once: the wrappers stay in place between regions.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any, ClassVar
from unittest import mock

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError
from extstream_guard._patching import unwrap

HANDLE = 0x7A00_0000


@pytest.fixture
def armed(sim: Any) -> Iterator[Any]:
    """The guard installed and armed (an external stream made); yields ``(npu, ext)``."""
    extstream_guard.install()
    npu = sim.torch_npu.npu
    yield npu, npu.ExternalStream(HANDLE)
    extstream_guard.uninstall()


def _pinned() -> Any:
    import torch

    return torch.ones(4).pin_memory()


def _defuse(*tensors: Any) -> None:
    from tests.guard.npusim import memory

    for tensor in tensors:
        block = memory.pinned_block(tensor)
        if block is not None:
            block.streams.clear()


# --- identity (plain CPU torch: torch's own C methods under the guard) -----------------------


@pytest.fixture
def cpu_methods(sim: Any) -> Iterator[Any]:
    """The guard armed over torch's own ``Tensor.to`` / ``copy_`` (the simulation's copy
    kernels, Python functions standing in for torch_npu's, are taken out): what a real
    installation wraps. Yields ``(npu, ext)``."""
    from tests.guard.npusim import kernels

    kernels.deactivate()
    try:
        extstream_guard.install()
        npu = sim.torch_npu.npu
        yield npu, npu.ExternalStream(HANDLE)
        extstream_guard.uninstall()
    finally:
        kernels.activate()


def test_lazy_module_to_in_and_out_of_a_region(cpu_methods: Any) -> None:
    import torch

    npu, ext = cpu_methods
    assert unwrap(vars(torch.Tensor)["to"]) is not vars(torch.Tensor)["to"]  # wrapped
    with npu.stream(ext):
        module = torch.nn.LazyLinear(3).to(torch.float64)  # raised ValueError (issue 31)
    assert isinstance(module.weight, torch.nn.UninitializedParameter)
    assert module.weight.dtype == torch.float64
    module = torch.nn.LazyLinear(3).to(torch.float32)
    assert module(torch.ones(2, 5)).shape == (2, 3)  # materialised through copy_ & co.


def test_uninitialized_parameter_keeps_its_allowed_methods(cpu_methods: Any) -> None:
    import torch

    npu, ext = cpu_methods
    with npu.stream(ext):
        param = torch.nn.UninitializedParameter()
        assert param.to(torch.float64).dtype == torch.float64
        with pytest.raises(ValueError, match="uninitialized parameter"):
            param.sum()  # still refused by torch, as without the guard


def _recording_class() -> Any:
    import torch

    class Recording(torch.Tensor):
        """A subclass that, like many, compares ``func`` with methods it captured before."""

        ORIGINALS = (torch._C.TensorBase.to, torch._C.TensorBase.copy_)
        seen: ClassVar[list[Any]] = []

        @classmethod
        def __torch_function__(
            cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            if any(func is original for original in cls.ORIGINALS):
                cls.seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    return Recording


def test_subclass_torch_function_sees_the_original_methods_once(cpu_methods: Any) -> None:
    import torch

    npu, ext = cpu_methods
    recording = _recording_class()
    tensor = torch.ones(4).as_subclass(recording)
    with npu.stream(ext):
        assert tensor.to(torch.float64).dtype == torch.float64
        tensor.copy_(torch.zeros(4))
        torch.Tensor.to(tensor, torch.float16)  # the unbound spelling
    # Each call reaches __torch_function__ once, with torch's own method object.
    assert recording.seen == [*recording.ORIGINALS, recording.ORIGINALS[0]]
    assert float(tensor[0]) == 0.0


def test_a_subclass_tensor_as_to_s_other_dispatches_as_without_the_guard(
    cpu_methods: Any,
) -> None:
    """``plain.to(other)``: torch's C method dispatches ``__torch_function__`` to ``other``'s
    class when ``other`` overrides it; the wrapper does the same. Its twin, ``to`` with a
    dtype, a device, a string or an integer first, dispatches to nobody (those are never
    tensors: the wrapper does not test them as one)."""
    import torch

    npu, ext = cpu_methods
    recording = _recording_class()
    other = torch.zeros(2, dtype=torch.float64).as_subclass(recording)
    plain = torch.ones(2)
    with npu.stream(ext):
        assert plain.to(other).dtype == torch.float64
        assert plain.to(torch.float16).dtype == torch.float16
        assert plain.to("cpu", torch.float64).dtype == torch.float64
        assert plain.to(torch.device("cpu")).dtype == torch.float32
        assert plain.to(None, torch.float64).dtype == torch.float64
    assert recording.seen == [recording.ORIGINALS[0]]  # once, for ``other``, torch's own
    assert type(plain.to(other)) is recording  # as torch returns it: other's class


def test_identity_with_the_class_attribute_read_while_armed(sim: Any) -> None:
    """What identity holds once armed (issue 31), pinned: ``func`` is torch's own method, so
    comparisons with methods captured before arming hold; ``torch.Tensor.to`` read from the
    class while armed is the guard's wrapper, so ``func is torch.Tensor.to`` written in a
    ``__torch_function__`` is False until ``uninstall()`` (README, guard Limitations: a
    descriptor returning the original on class access costs a Python ``__get__`` on every
    ``tensor.to``, about 0.2 of a ``torch.add`` more than the copy target allows)."""
    import torch

    from tests.guard.npusim import kernels

    seen: list[tuple[bool, bool]] = []

    class Probe(torch.Tensor):
        @classmethod
        def __torch_function__(
            cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            if func is captured:
                seen.append((func is captured, func is torch.Tensor.to))
            return super().__torch_function__(func, types, args, kwargs or {})

    kernels.deactivate()  # torch's own methods, as on hardware
    captured = torch.Tensor.to  # before arming
    try:
        probe = torch.ones(2).as_subclass(Probe)
        probe.to(torch.float64)
        extstream_guard.install()
        npu = sim.torch_npu.npu
        with npu.stream(npu.ExternalStream(HANDLE)):
            probe.to(torch.float64)
        extstream_guard.uninstall()
        probe.to(torch.float64)
    finally:
        kernels.activate()
    assert seen == [(True, True), (True, False), (True, True)]


def test_torch_function_mode_sees_the_original_method(cpu_methods: Any) -> None:
    import torch
    from torch.overrides import TorchFunctionMode

    npu, ext = cpu_methods
    seen = []

    class Mode(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(func)
            return func(*args, **(kwargs or {}))

    with npu.stream(ext), Mode():
        torch.ones(2).to(torch.float64)
    assert torch._C.TensorBase.to in seen


def test_lazy_module_under_a_transfer_to_npu_style_wrapper(sim: Any, monkeypatch: Any) -> None:
    """``transfer_to_npu`` wraps ``Tensor.to`` (``functools.wraps``) and puts its wrapper in
    ``UninitializedParameter``'s allowed list; the guard, armed after it, must hand
    ``__torch_function__`` that wrapper, not its own."""
    import torch
    from torch.nn.parameter import UninitializedTensorMixin

    from tests.guard.npusim import kernels

    kernels.deactivate()
    try:
        transfer = _transfer_like(torch._C.TensorBase.to)
        monkeypatch.setattr(torch.Tensor, "to", transfer)
        allowed = [transfer if m is torch._C.TensorBase.to else m
                   for m in UninitializedTensorMixin._allowed_methods]  # fmt: skip
        monkeypatch.setattr(UninitializedTensorMixin, "_allowed_methods", allowed)
        extstream_guard.install()
        npu = sim.torch_npu.npu
        ext = npu.ExternalStream(HANDLE)  # arms: the guard wraps transfer's wrapper
        assert unwrap(vars(torch.Tensor)["to"]) is transfer
        with npu.stream(ext):
            module = torch.nn.LazyLinear(3).to(torch.float64)
        assert module.weight.dtype == torch.float64
        extstream_guard.uninstall()
    finally:
        monkeypatch.undo()  # before the kernels go back: they save what the class holds
        kernels.activate()


def test_mock_patch_inside_a_region_survives_its_end(armed: Any) -> None:
    import torch

    npu, ext = armed
    wrapper = vars(torch.Tensor)["to"]
    spy = mock.MagicMock(name="to")
    with npu.stream(ext):
        patcher = mock.patch.object(torch.Tensor, "to", spy)
        patcher.start()
    assert vars(torch.Tensor)["to"] is spy  # the region's end removed it (issue 31)
    torch.ones(1).to(torch.float64)
    assert spy.called
    patcher.stop()
    assert vars(torch.Tensor)["to"] is wrapper
    with npu.stream(ext), mock.patch.object(torch.Tensor, "copy_", spy):
        assert vars(torch.Tensor)["copy_"] is spy  # a patch made and undone within one region
    assert unwrap(vars(torch.Tensor)["copy_"]) is not vars(torch.Tensor)["copy_"]


def test_mock_patch_across_uninstall_leaves_an_inert_transparent_wrapper(sim: Any) -> None:
    import torch

    npu = sim.torch_npu.npu
    kernel = torch.Tensor.to
    assert kernel is torch._C.TensorBase.to  # torch's C method, as torch_npu leaves it
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)
    with npu.stream(ext):
        spy = mock.MagicMock()
        patcher = mock.patch.object(torch.Tensor, "to", spy)
        patcher.start()
    extstream_guard.uninstall()
    assert vars(torch.Tensor)["to"] is spy  # another's patch on top stays (issue 40)
    patcher.stop()  # mock puts back what it saw: the guard's wrapper
    left = vars(torch.Tensor)["to"]
    assert left is not kernel and unwrap(left) is kernel
    pinned = _pinned()
    with npu.stream(ext):
        pinned.to("npu", non_blocking=True)  # inert: not refused
    _defuse(pinned)
    extstream_guard.install()  # installing again wraps the kernel, not the leftover
    npu.ExternalStream(HANDLE)
    assert unwrap(vars(torch.Tensor)["to"]) is kernel
    extstream_guard.uninstall()
    delattr(torch.Tensor, "to")  # the inert wrapper mock put back
    assert torch.Tensor.to is kernel


# --- parsing as torch parses ------------------------------------------------------------------

Call = Callable[[Any, Any], Any]

REFUSED: dict[str, Call] = {
    "positional-non_blocking": lambda t, p: p.to("npu", None, True, False),
    "integer-device": lambda t, p: p.to(0, non_blocking=True),
    "integer-device-keyword": lambda t, p: p.to(device=0, non_blocking=True),
    "tensor-keyword": lambda t, p: p.to(tensor=t.ones_npu, non_blocking=True),
    "dtype-then-flag": lambda t, p: t.npu_to_cpu(),
}

ALLOWED: dict[str, Call] = {
    "positional-copy-not-non_blocking": lambda t, p: p.to("npu", None, False, True),
    "copy-keyword": lambda t, p: p.to("npu", copy=True),
    "integer-device-blocking": lambda t, p: p.to(0),
    "dtype-positional-flag-false": lambda t, p: p.to(t.torch.float32, False, True),
}


def _helpers() -> Any:
    import torch

    from tests.guard import npusim

    return types.SimpleNamespace(
        torch=torch,
        ones_npu=npusim.npu_tensor(),
        npu_to_cpu=lambda: npusim.npu_tensor().to("cpu", torch.float32, True),
    )


@pytest.mark.parametrize("case", REFUSED, ids=list(REFUSED))
def test_spellings_torch_reads_as_non_blocking_pinned_copies(armed: Any, case: str) -> None:
    npu, ext = armed
    helpers, pinned = _helpers(), _pinned()
    with npu.stream(ext), pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
        REFUSED[case](helpers, pinned)


@pytest.mark.parametrize("case", ALLOWED, ids=list(ALLOWED))
def test_spellings_torch_reads_as_blocking_pass(armed: Any, case: str) -> None:
    npu, ext = armed
    helpers, pinned = _helpers(), _pinned()
    with npu.stream(ext):
        ALLOWED[case](helpers, pinned)
    from tests.guard.npusim import memory

    assert not memory.pinned_block(pinned).streams  # nothing recorded: really blocking


def test_integer_device_is_the_accelerator(armed: Any) -> None:
    import torch

    assert armed
    assert _pinned().to(0).device == torch.device("npu", 0)  # what the check assumes


MALFORMED: dict[str, Call] = {
    "to-bad-flag": lambda t, x: x.to("npu", None, "yes"),
    "to-too-many": lambda t, x: x.to("npu", None, True, True, True),
    "to-unknown-keyword": lambda t, x: x.to("npu", non_blocking=True, sideways=True),
    "to-bad-device": lambda t, x: x.to("nowhere", non_blocking=True),
    "copy_-nothing": lambda t, x: x.copy_(),
    "copy_-not-a-tensor": lambda t, x: x.copy_("a", True),
    "to-npu-index-out-of-range": lambda t, x: x.to("npu:-2", non_blocking=True),
    "to-unbound-not-a-tensor": lambda t, x: t.torch.Tensor.to("npu", non_blocking=True),
    "copy_-unbound-not-a-tensor": lambda t, x: t.torch.Tensor.copy_(1, x, True),
}


def _outcome(call: Callable[[], Any]) -> Any:
    try:
        call()
    except Exception as exc:  # the type is what is compared
        return type(exc)
    return None


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_calls_fail_as_without_the_guard(sim: Any, case: str) -> None:
    npu = sim.torch_npu.npu
    helpers = _helpers()
    ext = npu.ExternalStream(HANDLE)
    with npu.stream(ext):
        plain = _outcome(lambda: MALFORMED[case](helpers, _pinned()))
    extstream_guard.install()
    npu.ExternalStream(HANDLE)  # arms
    with npu.stream(ext):
        guarded = _outcome(lambda: MALFORMED[case](helpers, _pinned()))
    assert plain is not None and guarded is plain


# --- transfer_to_npu ------------------------------------------------------------------------------


def _transfer_like(to: Any) -> Any:
    """What ``transfer_to_npu``'s ``_wrapper_cuda`` does to ``Tensor.to``: ``cuda`` -> ``npu``,
    integers -> ``npu:<n>``, in positional and keyword devices."""

    def decorated(*args: Any, **kwargs: Any) -> Any:
        args = tuple(a.replace("cuda", "npu") if isinstance(a, str) else a for a in args)
        device = kwargs.get("device")
        if isinstance(device, str):
            kwargs["device"] = device.replace("cuda", "npu")
        return to(*args, **kwargs)

    decorated.__wrapped__ = to  # type: ignore[attr-defined]
    return decorated


@pytest.mark.parametrize("spelling", ["positional", "keyword", "cuda()"])
@pytest.mark.parametrize("transfer_first", [True, False], ids=["transfer-first", "guard-first"])
def test_cuda_under_transfer_to_npu(
    sim: Any, monkeypatch: Any, spelling: str, transfer_first: bool
) -> None:
    import torch

    npu = sim.torch_npu.npu
    assert "to" not in vars(torch.Tensor)  # torch's C method, inherited from TensorBase

    def transfer() -> None:
        monkeypatch.setitem(sys.modules, "torch_npu.contrib.transfer_to_npu", types.ModuleType("t"))
        monkeypatch.setattr(torch.Tensor, "to", _transfer_like(torch.Tensor.to))
        monkeypatch.setattr(torch.Tensor, "cuda", torch.Tensor.npu)

    if transfer_first:
        transfer()
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)
    if not transfer_first:
        transfer()
    calls = {
        "positional": lambda p: p.to("cuda", non_blocking=True),
        "keyword": lambda p: p.to(device="cuda:0", non_blocking=True),
        "cuda()": lambda p: p.cuda(non_blocking=True),
    }
    try:
        with npu.stream(ext), pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
            calls[spelling](_pinned())
        with npu.stream(ext):
            assert calls[spelling](torch.ones(4)).device == torch.device("npu", 0)  # pageable
    finally:  # undone in the reverse order: each restores what it saw
        if transfer_first:
            extstream_guard.uninstall()
        monkeypatch.undo()
        extstream_guard.uninstall()
    assert "to" not in vars(torch.Tensor)  # both restores, a setattr and a delattr, done
    assert torch.Tensor.to is torch._C.TensorBase.to


def test_cuda_without_transfer_to_npu_is_not_the_npu(armed: Any) -> None:
    npu, ext = armed
    with npu.stream(ext):
        plain = _outcome(lambda: _pinned().to("cuda", non_blocking=True))
    assert plain is not None and plain is not ExternalStreamError  # torch's own error


# --- staged copies (issue 40, item 7) -----------------------------------------------------------

STAGED: dict[str, Call] = {
    "strided-pinned-to-npu": lambda t, p: p[::2].to("npu", non_blocking=True),
    "expanded-pinned-to-npu": lambda t, p: p[:1].expand(4).to("npu", non_blocking=True),
    "copy_-from-strided-pinned": lambda t, p: t.torch.zeros(2).npu().copy_(p[::2], True),
    "copy_-into-strided-pinned": lambda t, p: p[::2].copy_(t.ones_npu[:2], non_blocking=True),
    "copy_-into-pinned-with-a-dtype-change": lambda t, p: (
        p.to(t.torch.float64).pin_memory().copy_(t.ones_npu, non_blocking=True)
    ),
}
NOT_STAGED: dict[str, Call] = {
    "dtype-change-to-npu": lambda t, p: p.to("npu", t.torch.float64, non_blocking=True),
    "contiguous-slice-to-npu": lambda t, p: p[:2].to("npu", non_blocking=True),
    "copy_-from-pinned-with-a-dtype-change": lambda t, p: (
        t.torch.zeros(4, dtype=t.torch.float64).npu().copy_(p, non_blocking=True)
    ),
}


@pytest.mark.parametrize("case", STAGED, ids=list(STAGED))
def test_copies_staged_through_pageable_memory_pass(armed: Any, case: str) -> None:
    """torch_npu stages a non-contiguous host side (and a device-to-host dtype change)
    through a pageable temporary: nothing is recorded in the pinned block, nothing aborts
    (refused before)."""
    npu, ext = armed
    helpers, pinned = _helpers(), _pinned()
    with npu.stream(ext):
        STAGED[case](helpers, pinned)
    from tests.guard.npusim import memory

    assert not memory.pinned_block(pinned).streams


@pytest.mark.parametrize("case", NOT_STAGED, ids=list(NOT_STAGED))
def test_copies_that_keep_the_pinned_source_are_refused(armed: Any, case: str) -> None:
    """The twins: a contiguous pinned source is recorded, a dtype change to the device
    included (the aclnn path keeps it, hazards.md)."""
    npu, ext = armed
    helpers, pinned = _helpers(), _pinned()
    with npu.stream(ext), pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
        NOT_STAGED[case](helpers, pinned)


# --- what an NPU tensor's armed copy reads (issue 40, item 9): counted, not timed ---------------


@pytest.mark.parametrize("order", ["no-transfer", "transfer-first", "transfer-after-arming"])
@pytest.mark.parametrize("region", ["outside", "in-region"])
def test_an_npu_tensor_s_copies_parse_each_spelling_once(
    sim: Any, region: str, order: str, monkeypatch: Any
) -> None:
    """Armed, ``npu_t.to(...)`` parsed its arguments with torch's parser on every call (7-10 us
    added in the simulation): the guard now reads ``to(dtype)`` and ``to(<device>[,
    non_blocking=<bool>])`` itself, the device parsed once per spelling, also with
    ``transfer_to_npu``'s wrapper below or above the guard's. Counted: the calls of
    ``torch._C._nn._parse_to`` made from the guard's frames (the simulated kernel parses too,
    standing for torch_npu's C++)."""
    import sys

    import torch

    from tests import _npu_wheel
    from tests.guard import npusim
    from tests.guard._wheels import wheel_tree
    from tests.guard.npusim import transfer

    tree = wheel_tree(_npu_wheel.DEFAULT_VERSION)
    npu = sim.torch_npu.npu
    parsed: list[str] = []
    real = torch._C._nn._parse_to

    def counting(*args: Any, **kwargs: Any) -> Any:
        if sys._getframe(1).f_globals.get("__name__", "").startswith("extstream_guard"):
            parsed.append(repr(args))
        return real(*args, **kwargs)

    npu_t, other = npusim.npu_tensor(), npusim.npu_tensor()
    spellings = ("cpu", "npu:0", torch.device("npu", 0))
    before = {owner: dict(vars(owner)) for owner in (torch.Tensor, torch.nn.Module)}
    applied = [transfer.apply(tree)] if order == "transfer-first" else []
    try:
        extstream_guard.install()
        ext = npu.ExternalStream(HANDLE)
        if order == "transfer-after-arming":
            applied.append(transfer.apply(tree))
        monkeypatch.setattr(torch._C._nn, "_parse_to", counting)
        with npu.stream(ext) if region == "in-region" else contextlib.nullcontext():
            for _ in range(50):
                npu_t.to(torch.float16)
                for spelling in spellings:
                    npu_t.to(spelling)
                npu_t.to("npu:0", non_blocking=True)
                npu_t.copy_(other)
        monkeypatch.undo()
    finally:
        extstream_guard.uninstall()
        for done in reversed(applied):
            done.undo()
        for owner, attrs in before.items():  # transfer's undo put back the guard's inert wrapper
            for name, value in attrs.items():
                if vars(owner).get(name) is not value:
                    setattr(owner, name, value)
            for name in set(vars(owner)) - set(attrs):  # over an inherited method: a delattr
                delattr(owner, name)
    assert len(parsed) <= len(spellings), parsed
