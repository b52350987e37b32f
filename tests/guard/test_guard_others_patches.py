"""Issue 40, items 1-4: the guard's copy wrappers among other libraries' patches.

* ``LazyLinear(3).to(torch.float64)`` in and out of a region, with ``transfer_to_npu`` (the
  wheel's own ``_wrapper_cuda`` and ``_replace_to_method_in_allowed_methods``, see
  ``npusim/transfer.py``) applied before the guard, after it armed, or not at all;
* ``uninstall()`` / the end of ``installed()`` keep a patch another library stacked on top;
* subclasses and modes see no call the guard adds (no ``__get__`` of the facts it reads).

The copy methods are torch's own here (the simulation's Python kernels taken out), as on a
real installation: ``__torch_function__`` identity is what is tested.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

import extstream_guard
from extstream_guard._patching import unwrap

HANDLE = 0x7A00_0000
ORDERS = ("no-transfer", "transfer-first", "transfer-after-arming")


@pytest.fixture
def tree() -> Any:
    from tests import _npu_wheel
    from tests.guard._wheels import wheel_tree

    return wheel_tree(_npu_wheel.DEFAULT_VERSION)


@pytest.fixture
def torch_methods(sim: Any) -> Iterator[Any]:
    """The simulation with torch's own ``Tensor.to`` / ``copy_`` (kernels out); yields npu."""
    from tests.guard.npusim import kernels

    kernels.deactivate()
    try:
        yield sim.torch_npu.npu
    finally:
        extstream_guard.uninstall()
        kernels.activate()


@contextlib.contextmanager
def _guard_and_transfer(npu: Any, tree: Any, order: str) -> Iterator[Any]:
    """The guard installed and armed, with ``transfer_to_npu`` applied in ``order``; undone
    in the reverse order (each library restores what it saw). Yields the external stream."""
    from tests.guard.npusim import transfer

    applied = transfer.apply(tree) if order == "transfer-first" else None
    try:
        extstream_guard.install()
        ext = npu.ExternalStream(HANDLE)  # arms the copy checks
        late = transfer.apply(tree) if order == "transfer-after-arming" else None
        try:
            yield ext
        finally:
            if late is not None:
                late.undo()
            extstream_guard.uninstall()
    finally:
        if applied is not None:
            applied.undo()


# --- items 1 and 2: lazy modules ------------------------------------------------------------


@pytest.mark.parametrize("region", [True, False], ids=["in-region", "outside"])
@pytest.mark.parametrize("order", ORDERS)
def test_lazy_module_to_as_without_the_guard(
    torch_methods: Any, tree: Any, order: str, region: bool
) -> None:
    import torch

    npu = torch_methods
    with _guard_and_transfer(npu, tree, order) as ext:
        with npu.stream(ext) if region else contextlib.nullcontext():
            module = torch.nn.LazyLinear(3).to(torch.float64)  # ValueError after arming
            param = torch.nn.UninitializedParameter().to(torch.float16)
        assert isinstance(module.weight, torch.nn.UninitializedParameter)
        assert module.weight.dtype == torch.float64 and param.dtype == torch.float16
        assert module(torch.ones(2, 5, dtype=torch.float64)).shape == (2, 3)
        with pytest.raises(ValueError, match="uninitialized parameter"):
            torch.nn.UninitializedParameter().sum()  # still refused by torch


# --- item 3: uninstall keeps what others stacked on top --------------------------------------


@pytest.mark.parametrize("end", ["uninstall", "installed-block"])
def test_uninstall_keeps_transfer_to_npu_applied_after_arming(
    sim: Any, tree: Any, end: str
) -> None:
    import torch

    from tests.guard.npusim import transfer

    npu = sim.torch_npu.npu
    kernel = torch.Tensor.to
    assert "to" not in vars(torch.Tensor)  # torch's C method, as torch_npu leaves it
    cm = extstream_guard.installed() if end == "installed-block" else contextlib.nullcontext()
    applied = None
    try:
        with cm:
            extstream_guard.install()
            npu.ExternalStream(HANDLE)  # arms: Tensor.to is the guard's wrapper
            guard_to = vars(torch.Tensor)["to"]
            applied = transfer.apply(tree)
            remapped = vars(torch.Tensor)["to"]
            assert unwrap(remapped) is remapped and remapped.__wrapped__ is guard_to
            extstream_guard.uninstall()
        assert vars(torch.Tensor)["to"] is remapped  # transfer_to_npu's remapping stays
        assert torch.ones(2).to("cuda:0").device == torch.device("npu", 0)
        assert torch.ones(2).cuda().device == torch.device("npu", 0)
        extstream_guard.install()  # installing again wraps what is there, nothing lost
        ext = npu.ExternalStream(HANDLE)
        assert unwrap(vars(torch.Tensor)["to"]) is remapped
        with npu.stream(ext), pytest.raises(extstream_guard.ExternalStreamError):
            torch.ones(4).pin_memory().to("cuda", non_blocking=True)
        extstream_guard.uninstall()
        assert vars(torch.Tensor)["to"] is remapped
    finally:
        if applied is not None:
            applied.undo()
    assert vars(torch.Tensor)["to"] is not kernel  # the guard's inert wrapper transfer saw
    assert unwrap(vars(torch.Tensor)["to"]) is kernel
    delattr(torch.Tensor, "to")
    assert torch.Tensor.to is kernel


@pytest.mark.parametrize("end", ["uninstall", "installed-block"])
def test_uninstall_keeps_transfer_to_npu_over_torch_s_inherited_method(
    torch_methods: Any, tree: Any, end: str
) -> None:
    """Item 3 where ``Tensor.to`` is what torch_npu leaves it, torch's C method inherited from
    ``TensorBase``: the guard's wrapper is the class's own attribute only while armed, and its
    restore is a ``delattr``, which must not take ``transfer_to_npu``'s wrapper stacked on top
    (the simulation's kernel, a class attribute, only exercised the ``setattr`` restore)."""
    import torch

    from tests.guard.npusim import transfer

    npu = torch_methods
    assert "to" not in vars(torch.Tensor)
    cm = extstream_guard.installed() if end == "installed-block" else contextlib.nullcontext()
    applied = None
    try:
        with cm:
            extstream_guard.install()
            npu.ExternalStream(HANDLE)  # arms: the guard's wrapper is set on the class
            guard_to = vars(torch.Tensor)["to"]
            assert unwrap(guard_to) is torch._C.TensorBase.to
            applied = transfer.apply(tree)
            remapped = vars(torch.Tensor)["to"]
            assert remapped.__wrapped__ is guard_to
            extstream_guard.uninstall()
        assert vars(torch.Tensor)["to"] is remapped  # not deleted from under transfer_to_npu
        assert torch.ones(2).to(torch.float64).dtype == torch.float64
        applied.undo()
        applied = None
        # what transfer_to_npu put back is the guard's wrapper, inert: torch's method runs
        assert unwrap(vars(torch.Tensor)["to"]) is torch._C.TensorBase.to
        assert torch.ones(2).to(torch.float64).dtype == torch.float64
    finally:
        if applied is not None:
            applied.undo()
        if "to" in vars(torch.Tensor):
            delattr(torch.Tensor, "to")
    assert torch.Tensor.to is torch._C.TensorBase.to


def test_uninstall_restores_transfer_to_npu_applied_first(sim: Any, tree: Any) -> None:
    import torch

    from tests.guard.npusim import transfer

    npu = sim.torch_npu.npu
    applied = transfer.apply(tree)
    try:
        remapped = vars(torch.Tensor)["to"]
        extstream_guard.install()
        npu.ExternalStream(HANDLE)
        assert unwrap(vars(torch.Tensor)["to"]) is remapped
        extstream_guard.uninstall()
        assert vars(torch.Tensor)["to"] is remapped
    finally:
        applied.undo()


def test_uninstall_keeps_a_stacked_patch_of_any_guarded_point(sim: Any) -> None:
    """Not only the copy points: a stream method wrapped after install stays; the points
    nobody touched are restored."""
    npu = sim.torch_npu.npu
    before_sync = vars(npu.Stream)["synchronize"]
    before_query = vars(npu.Stream)["query"]
    extstream_guard.install()
    guard_sync = vars(npu.Stream)["synchronize"]
    assert unwrap(guard_sync) is before_sync

    def traced(self: Any) -> Any:
        return guard_sync(self)

    npu.Stream.synchronize = traced
    try:
        extstream_guard.uninstall()
        assert vars(npu.Stream)["synchronize"] is traced
        assert vars(npu.Stream)["query"] is before_query
        ext = npu.ExternalStream(HANDLE)
        with pytest.raises(RuntimeError) as info:  # torch_npu's own error: the guard is inert
            ext.synchronize()
        assert not isinstance(info.value, extstream_guard.ExternalStreamError)
    finally:
        npu.Stream.synchronize = before_sync


# --- item 4: no call the guard adds reaches __torch_function__ -------------------------------


def _strict_class() -> Any:
    import torch

    class Strict(torch.Tensor):
        """Allows the copy methods and nothing else (a whitelisting subclass; by name, so that
        ``transfer_to_npu``'s wrapper of ``to`` passes as it does without the guard)."""

        seen: ClassVar[list[str]] = []

        @classmethod
        def __torch_function__(
            cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            cls.seen.append(getattr(func, "__name__", repr(func)))
            if getattr(func, "__name__", "") not in ("to", "copy_"):
                raise NotImplementedError(f"Strict does not allow {func}")
            return super().__torch_function__(func, types, args, kwargs or {})

    return Strict


def _strict_program(strict: Any) -> list[str]:
    import torch

    strict.seen.clear()
    tensor = torch.ones(4).as_subclass(strict)
    tensor.to(torch.float64)
    tensor.to(torch.float64, non_blocking=True)
    tensor.to("cpu", torch.float16, True)
    tensor.copy_(torch.zeros(4), non_blocking=True)
    torch.ones(4).to(tensor, non_blocking=True)
    torch.zeros(4).copy_(tensor, True)
    return list(strict.seen)


def _mode_program() -> list[str]:
    import torch
    from torch.overrides import TorchFunctionMode

    seen: list[str] = []

    class Logging(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(getattr(func, "__name__", repr(func)))
            return func(*args, **(kwargs or {}))

    with Logging():
        tensor = torch.ones(4)
        tensor.to(torch.float64)
        tensor.to("cpu", non_blocking=True)
        torch.zeros(4).copy_(tensor, non_blocking=True)
    return seen


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("region", [True, False], ids=["in-region", "outside"])
def test_subclasses_and_modes_see_only_the_calls_made(
    torch_methods: Any, tree: Any, order: str, region: bool
) -> None:
    strict = _strict_class()
    plain_strict, plain_mode = _strict_program(strict), _mode_program()
    assert plain_mode == ["ones", "to", "to", "zeros", "copy_"]
    npu = torch_methods
    with (
        _guard_and_transfer(npu, tree, order) as ext,
        npu.stream(ext) if region else contextlib.nullcontext(),
    ):
        assert _strict_program(strict) == plain_strict  # NotImplementedError before
        assert _mode_program() == plain_mode  # ['ones', '__get__', 'to', ...] before
