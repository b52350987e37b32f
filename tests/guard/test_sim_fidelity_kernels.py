"""The simulated copy kernels sit below torch's C methods, as torch_npu's do (issue 40).

torch_npu leaves ``Tensor.to``, ``copy_``, ``pin_memory`` and ``is_pinned`` as torch's C methods
inherited from ``TensorBase`` and implements the device side under the dispatcher. The wheel's
own Python files are the ground truth for the first half; the simulation must then leave those
methods alone too, so that the guard wraps (and restores, with a ``delattr``) exactly what it
wraps on hardware, and the copies must still reach the simulated kernels from below.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path
from typing import Any

import pytest

import extstream_guard
from extstream_guard._patching import unwrap
from tests import _npu_wheel
from tests._skips import NO_TORCH

pytest.importorskip("torch", reason=NO_TORCH)

HANDLE = 0x7E57_0000
METHODS = ("to", "copy_", "pin_memory", "is_pinned")
#: ``transfer_to_npu`` is opt-in (imported by the user) and wraps ``Tensor.to`` on purpose.
OPT_IN = "contrib/transfer_to_npu.py"


def _set_on_tensor(tree: ast.AST) -> set[str]:
    """Names assigned or ``setattr``-ed on ``Tensor`` / ``TensorBase`` in ``tree``."""

    def tensor_class(node: ast.AST) -> bool:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        return name in ("Tensor", "TensorBase")

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and tensor_class(target.value):
                    found.add(target.attr)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "setattr"
            and len(node.args) >= 2
            and tensor_class(node.args[0])
            and isinstance(node.args[1], ast.Constant)
        ):
            found.add(str(node.args[1].value))
    return found


def test_the_wheel_leaves_torch_s_copy_methods() -> None:
    """No Python file of the wheel (``transfer_to_npu`` aside) sets the copy methods on
    ``torch.Tensor``: on hardware they are torch's C methods, the kernels below them."""
    from tests.guard._wheels import wheel_tree

    root = Path(wheel_tree(_npu_wheel.sim_version())) / "torch_npu"
    setters: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        if relative == OPT_IN or "Tensor" not in text:
            continue
        try:
            with warnings.catch_warnings():  # the wheel's files have invalid escapes
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except SyntaxError:  # pragma: no cover - the wheel's files parse on 3.11
            continue
        names = _set_on_tensor(tree) & set(METHODS)
        if names:
            setters[relative] = names
    assert setters == {}
    transfer = ast.parse((root / OPT_IN).read_text(encoding="utf-8"))
    assert "cuda" in _set_on_tensor(transfer)  # the scan does see what a file sets


def test_the_simulation_leaves_torch_s_copy_methods(sim: Any) -> None:
    import torch

    for name in METHODS:
        assert name not in vars(torch.Tensor), name
        assert getattr(torch.Tensor, name) is getattr(torch._C.TensorBase, name)
    assert torch.UntypedStorage.is_pinned is torch.storage._StorageBase.is_pinned


@pytest.mark.parametrize("end", ["uninstall", "installed-block"])
def test_the_guard_restores_exactly_torch_s_c_methods(sim: Any, end: str) -> None:
    """Armed, the guard's wrappers are the class's own attributes around torch's C methods;
    its restore deletes them, so the inherited C method shows through again."""
    import contextlib

    import torch

    npu = sim.torch_npu.npu
    cm = extstream_guard.installed() if end == "installed-block" else contextlib.nullcontext()
    with cm:
        extstream_guard.install()
        npu.ExternalStream(HANDLE)  # arms the copy checks
        for name in ("to", "copy_"):
            wrapper = vars(torch.Tensor)[name]
            assert wrapper is not getattr(torch._C.TensorBase, name)
            assert unwrap(wrapper) is getattr(torch._C.TensorBase, name)
        extstream_guard.uninstall()
    for name in METHODS:
        assert name not in vars(torch.Tensor), name
        assert getattr(torch.Tensor, name) is getattr(torch._C.TensorBase, name)


def _streams(tensor: Any) -> set[tuple[int, int]]:
    from tests.guard.npusim import memory

    block = memory.pinned_block(tensor)
    assert block is not None
    return set(block.streams)


def test_copies_reach_the_kernels_below_torch_s_methods(sim: Any) -> None:
    """Without the guard, torch's C methods reach the simulated kernels: what the pinned
    blocks record, what comes back on which device, what is pinned."""
    import torch

    from tests.guard import npusim

    npu_t = npusim.npu_tensor()
    pinned = torch.ones(4).pin_memory()
    assert pinned.is_pinned() and pinned.untyped_storage().is_pinned()
    assert not torch.ones(4).is_pinned() and not npu_t.is_pinned()
    on_npu = pinned.to("npu", non_blocking=True)  # index-less: torch's C++ resolves it
    assert on_npu.device == torch.device("npu", 0) and _streams(pinned) == {(0, 0)}
    assert torch.equal(on_npu.cpu(), pinned)
    again = torch.ones(4).pin_memory()
    assert torch.ops.aten._to_copy(again, device="npu:1", non_blocking=True).device.index == 1
    assert _streams(again) == {(1, 0)}
    host = npu_t.to("cpu", non_blocking=True)  # torch_npu allocates the result pinned
    assert host.device.type == "cpu" and host.is_pinned() and _streams(host) == {(0, 0)}
    into = torch.zeros(4).pin_memory()
    assert into.copy_(npu_t, non_blocking=True) is into and _streams(into) == {(0, 0)}
    assert torch.equal(into, torch.tensor([1.0, 2.0, 3.0, 4.0]))
    staged = torch.zeros(4, 2).pin_memory().t()  # non-contiguous: staged, nothing recorded
    staged.to("npu", non_blocking=True)
    assert _streams(staged) == set()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        npu_t.pin_memory()
    assert npu_t.to("npu:0") is npu_t  # same device and dtype: torch's alias, no copy


def test_the_guard_hands_torch_s_c_method_to_an_npu_subclass(sim: Any) -> None:
    """The re-dispatch branch: an NPU tensor of a subclass with its own ``__torch_function__``
    gets ``torch._C.TensorBase.to`` as ``func`` from the armed guard, as without it, and the
    copy still reaches the kernel below (a pinned host result, recorded)."""
    import torch

    from tests.guard import npusim

    seen: list[Any] = []

    class Logged(npusim.SimNPUTensor):
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs)

    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)
    tensor = torch.Tensor._make_subclass(Logged, torch.tensor([1.0, 2.0]))
    tensor._sim_index = 0
    host = tensor.to("cpu", non_blocking=True)
    assert seen == [torch._C.TensorBase.to]
    assert host.is_pinned() and _streams(host) == {(0, 0)}
    with npu.stream(ext), pytest.raises(extstream_guard.ExternalStreamError, match="XST201"):
        tensor.to("cpu", non_blocking=True)
