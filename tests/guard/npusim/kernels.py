"""torch_npu's copy kernels and pinned-memory hooks, standing in for torch's C++ dispatch.

A CPU-only torch has no NPU device and no pinned memory. As on torch_npu, ``Tensor.to``,
``Tensor.copy_``, ``Tensor.pin_memory`` and ``Tensor.is_pinned`` stay torch's C methods inherited
from ``TensorBase`` (and ``UntypedStorage.is_pinned`` torch's own): the kernels below sit under
them, reached through the dispatcher (see "below the dispatcher" further down), and their frames
belong to module ``torch_npu._C`` like every simulated kernel. So the guard wraps torch's C
methods here exactly as on a real installation: its hand-over of ``func`` to
``__torch_function__`` and its ``delattr`` restore run as they do there. Only
``UntypedStorage.copy_`` is still a Python function on the class while the simulation is active
(torch's storage copy makes CPU tensors of both storages, out of a Python subclass's reach).

What each copy does (spec 2.6 and hazards.md, hazard 1):

* host -> NPU (``cpu.to("npu", non_blocking=True)``, ``npu.copy_(cpu, non_blocking=True)``): a
  pinned source records the destination device's current stream in its block
  (``CopyKernel.cpp:132-140``); a pageable one synchronises that stream instead (safe). Copies
  from or into a non-contiguous host tensor stage through a pageable temporary and record
  nothing, and so do dtype-changing device-to-host copies; a dtype-changing host-to-device
  copy keeps its contiguous pinned source and records (the aclnn path,
  ``CopyKernelOpApi.cpp:169-172``; hazards.md, hazard 1).
* NPU -> host with ``non_blocking=True``: ``.to("cpu")`` allocates a **pinned** result
  (``ToKernelNpu.cpp:85-119``), and the copy records the source device's current stream in it;
  ``cpu_dst.copy_(npu)`` records in ``cpu_dst``'s block when that is pinned.
* NPU -> other NPU: events recorded and blocked on both devices' current streams
  (``CopyKernel.cpp:323-328, 350-354``): X03 when the source's is external (the event is
  recorded there), X04 when the destination's is (it waits), as the XST112 row says; which of
  the two a real device reaches first when both are external is [inf].

Storage copies (``UntypedStorage.copy_``) take the same host<->device path; a simulated NPU
storage is :class:`SimNPUStorage`, a CPU storage that reports an NPU device.
"""

from __future__ import annotations

import types
from typing import Any

import torch

from extstream_lint.contract import native_not_supported

from . import fake_c, memory
from .patching import Patches

__all__ = ["SimNPUStorage", "activate", "deactivate", "npu_index", "wrap_npu"]

NPU = "npu"
_patches = Patches()
#: torch's own methods, called for everything that is not the simulation's business.
_TO = torch._C.TensorBase.to
_COPY = torch._C.TensorBase.copy_
_STORAGE_COPY = torch._C.StorageBase.copy_


class SimNPUStorage(torch.UntypedStorage):
    """An untyped storage on simulated ``npu:<index>`` (CPU bytes underneath)."""

    _sim_index: int = 0

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return torch.device(NPU, self._sim_index)


def npu_storage(nbytes: int, device: int = 0) -> SimNPUStorage:
    storage = SimNPUStorage(nbytes)
    storage._sim_index = device
    return storage


def npu_index(obj: Any) -> int | None:
    """The simulated NPU index of a tensor or storage, or None for host memory."""
    index = getattr(obj, "_sim_index", None)
    return index if isinstance(index, int) else None


def wrap_npu(tensor: torch.Tensor, device: int) -> torch.Tensor:
    """``tensor``'s data as a tensor on simulated ``npu:<device>`` (shares the storage)."""
    from . import SimNPUTensor

    with torch._C._DisableTorchDispatch():  # the alias is torch's, not an NPU operator
        result = tensor.as_subclass(SimNPUTensor)
    result._sim_index = device
    return result


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    """``tensor``'s data as a plain host tensor (an alias, no simulated NPU dispatch)."""
    with torch._C.DisableTorchFunctionSubclass(), torch._C._DisableTorchDispatch():
        return tensor.as_subclass(torch.Tensor)


def _current_device() -> int:
    return fake_c.STATE.device()


def _cross_device(src: int, dst: int) -> None:
    """Peer copy: record an event on the source's current stream, the destination's waits."""
    if fake_c._is_ext(fake_c.STATE.current(src)):
        raise RuntimeError(native_not_supported("NPUEvent::record") + fake_c._suffix(7))
    if fake_c._is_ext(fake_c.STATE.current(dst)):
        raise RuntimeError(native_not_supported("NPUEvent::block") + fake_c._suffix(7))
    fake_c.STATE.log.append(("peer_copy", src, dst))


def _parse_to(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, bool, bool]:
    """``(device, dtype, non_blocking, copy)`` as ``Tensor.to``'s parser reads them."""
    kwargs = dict(kwargs)
    copy = bool(kwargs.pop("copy", False))
    positional = list(args)
    # ``copy`` is the 4th positional of to(device, dtype, non_blocking, copy) and the 3rd of
    # to(dtype, non_blocking, copy) / to(tensor, non_blocking, copy); _parse_to refuses it.
    first = positional[0] if positional else None
    at = 2 if isinstance(first, (torch.dtype, torch.Tensor)) else 3
    if len(positional) > at:
        copy = copy or bool(positional.pop(at))
    device, dtype, non_blocking, _ = torch._C._nn._parse_to(*positional, **kwargs)
    return device, dtype, bool(non_blocking), copy


def to(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """``Tensor.to``: torch's own for host copies, torch_npu's ``_to_copy`` for NPU ones."""
    src = npu_index(self)
    try:
        device, dtype, non_blocking, copy = _parse_to(args, kwargs)
    except TypeError:  # torch's own error, as its parser gives it (a numpy bool flag too)
        return _TO(_plain(self), *args, **kwargs)
    if device is None and src is None:
        return _TO(self, *args, **kwargs)
    if device is None:
        device = torch.device(NPU, src)
    if device.type != NPU and src is None:
        return _TO(self, *args, **kwargs)
    dst = None
    if device.type == NPU:
        dst = _current_device() if device.index is None else device.index
    plain = _plain(self)
    if src is not None and plain.grad_fn is not None:
        # the alias (torch_npu's copy has none) is of the source: its node is on that device,
        # as the node below a ``ToCopyBackward0`` is on hardware (issue 40)
        from . import engine

        engine.tag_nodes(plain.grad_fn, src)
    dtype = dtype or plain.dtype
    if src is not None and dst is not None:  # device to device
        if src == dst and dtype == plain.dtype and not copy:
            return self
        if src != dst:
            _cross_device(src, dst)
        return wrap_npu(_TO(plain, dtype=dtype, copy=True), dst)
    staged = not plain.is_contiguous()  # a dtype change keeps the pinned source (aclnn)
    if dst is not None:  # host to device
        result = wrap_npu(_TO(plain, dtype=dtype, copy=True), dst)
        if non_blocking and not staged:
            memory.record_on_block(self, dst)
        return result
    assert src is not None  # device to host
    if not non_blocking:
        return _TO(plain, dtype=dtype, copy=True)
    result = memory.allocate_pinned(plain.shape, dtype)
    _COPY(result, plain)
    memory.record_on_block(result, src)
    return result


def _check_flag(name: str, value: Any, *, none: bool) -> None:
    """``non_blocking`` as torch's parser takes it: a ``bool`` only (numpy bools and ints
    are refused), or None where the signature allows it (``UntypedStorage.copy_``)."""
    if type(value) is bool or (none and value is None):
        return
    raise TypeError(
        f"{name}(): argument 'non_blocking' (position 2) must be bool, not {type(value).__name__}"
    )


def storage_copy_(self: Any, src: Any, non_blocking: Any = None) -> Any:
    """``UntypedStorage.copy_``: the same host<->device kernel for storages."""
    dst_index, src_index = npu_index(self), npu_index(src)
    _check_flag("copy_", non_blocking, none=True)
    if dst_index is None and src_index is None:
        return _STORAGE_COPY(self, src, bool(non_blocking))
    if dst_index is not None and src_index is not None and dst_index != src_index:
        _cross_device(src_index, dst_index)
    _STORAGE_COPY(self, src)
    if non_blocking and (dst_index is None) != (src_index is None):
        host, device = (self, src_index) if dst_index is None else (src, dst_index)
        memory.record_on_block(host, device)
    return self


def _kernel(function: Any) -> Any:
    """``function`` with its frames in module ``torch_npu._C`` (a real kernel has none)."""
    kernel = types.FunctionType(
        function.__code__, dict(globals(), __name__="torch_npu._C"), function.__name__,
        function.__defaults__,
    )  # fmt: skip
    kernel.__qualname__ = function.__qualname__
    return kernel


#: What the simulation still puts on torch's classes: a storage copy takes no dispatcher
#: path a Python subclass can reach (``storage_copy`` makes CPU tensors of both storages).
_REPLACED = ((torch.UntypedStorage, "copy_", storage_copy_),)


# --- below the dispatcher: where torch's C methods reach the kernels (issue 40) -------------
# torch_npu leaves ``Tensor.to`` / ``copy_`` / ``pin_memory`` / ``is_pinned`` as torch's C
# methods inherited from ``TensorBase`` and implements the device side under the dispatcher.
# The simulation does the same; what reaches the kernels above from which path:
#
# * a call with a simulated NPU operand dispatches ``__torch_function__`` to
#   :class:`~tests.guard.npusim.SimNPUTensor` (the stand-in for the C++ dispatch a real NPU
#   tensor takes): ``Tensor.to`` / ``aten.to`` / ``aten._to_copy`` go to :func:`to` there,
#   since ``to``'s own alias test (same device, same dtype) runs in C++ on the CPU data;
# * every ``aten.copy_`` / ``aten.copy`` with a simulated NPU operand reaches
#   ``SimNPUTensor.__torch_dispatch__``, which calls :func:`dispatch_copy`; a host tensor's
#   ``.to("npu")`` / ``torch.ops.aten._to_copy(p, device="npu")`` gets there through torch's
#   own ``_to_copy``, whose result comes from the ``PrivateUse1`` ``empty`` kernels below;
# * ``aten.is_pinned`` / ``aten._pin_memory`` on host memory: the ``CPU`` kernels below
#   (torch's ``pin_memory`` calls both; a storage's ``is_pinned`` calls ``Tensor.is_pinned``).
#
# An index-less ``"npu"`` or an integer device is resolved by torch's C++ through the
# ``PrivateUse1`` device guard, which the simulation registers once per process with torch's
# Python backend hook (``torch._C._acc``); that guard reports device 0 as current whatever
# the simulated current device is (a difference docs/guard.md lists).


def dispatch_copy(dst: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> Any:
    """``aten::copy_`` with a simulated NPU side (torch_npu's ``copy_`` kernel)."""
    dst_index, src_index = npu_index(dst), npu_index(src)
    if dst_index is not None and src_index is not None and dst_index != src_index:
        _cross_device(src_index, dst_index)
    with _below():
        _COPY(dst, src)
    if non_blocking and (dst_index is None) != (src_index is None):
        host, device = (dst, src_index) if dst_index is None else (src, dst_index)
        staged = not host.is_contiguous() or (dst_index is None and dst.dtype != src.dtype)
        if not staged:
            memory.record_on_block(host, device)
    return dst


def _below() -> Any:
    """What a kernel runs its host work under: no ``__torch_function__``, no Python
    dispatch (the simulated tensors' own handlers)."""
    from contextlib import ExitStack

    stack = ExitStack()
    stack.enter_context(torch._C.DisableTorchFunctionSubclass())
    stack.enter_context(torch._C._DisableTorchDispatch())
    return stack


def _empty_memory_format(size: Any, *, dtype: Any = None, layout: Any = None,
                         device: Any = None, pin_memory: Any = None,
                         memory_format: Any = None) -> torch.Tensor:  # fmt: skip
    """``aten::empty.memory_format`` on ``PrivateUse1``: NPU memory (CPU bytes underneath)."""
    with _below():
        plain = torch.empty(size, dtype=dtype, memory_format=memory_format)
    return wrap_npu(plain, _index_of(device))


def _empty_strided(size: Any, stride: Any, *, dtype: Any = None, layout: Any = None,
                   device: Any = None, pin_memory: Any = None) -> torch.Tensor:  # fmt: skip
    """``aten::empty_strided`` on ``PrivateUse1`` (what ``_to_copy`` allocates with)."""
    with _below():
        plain = torch.empty_strided(size, stride, dtype=dtype)
    return wrap_npu(plain, _index_of(device))


def _index_of(device: Any) -> int:
    index = getattr(device, "index", None)
    return _current_device() if index is None else index


def _is_pinned_kernel(self: torch.Tensor, device: Any = None) -> bool:
    """``aten::is_pinned`` on host memory: the driver query (by address)."""
    return npu_index(self) is None and memory.is_pinned(self)


def _pin_memory_kernel(self: torch.Tensor, device: Any = None) -> torch.Tensor:
    """``aten::_pin_memory``: a copy in a fresh pinned block (``pin_memory`` asked
    ``is_pinned`` first)."""
    if npu_index(self) is not None:
        raise RuntimeError("cannot pin 'npu' memory: only dense CPU tensors can be pinned")
    result = memory.allocate_pinned(self.shape, self.dtype)
    with _below():
        _COPY(result, self)
    return result


_KERNELS = (
    ("empty.memory_format", _empty_memory_format, "PrivateUse1"),
    ("empty_strided", _empty_strided, "PrivateUse1"),
    ("is_pinned", _is_pinned_kernel, "CPU"),
    ("_pin_memory", _pin_memory_kernel, "CPU"),
)
_library: list[Any] = []


class _PythonGuard(torch._C._acc.DeviceGuard):  # type: ignore[misc]
    """The ``PrivateUse1`` device guard torch's C++ asks for an index-less device."""

    def type_(self) -> Any:
        return torch._C._autograd.DeviceType.PrivateUse1


_guard_registered: list[Any] = []


def _register_device_guard() -> None:
    """Once per process (torch allows no undo), as the backend rename is."""
    if not _guard_registered:
        guard = _PythonGuard()
        torch._C._acc.register_python_privateuseone_device_guard(guard)
        _guard_registered.append(guard)


def _register_kernels() -> None:
    library = torch.library.Library("aten", "IMPL")
    for name, kernel, key in _KERNELS:
        library.impl(name, _kernel(kernel), key)
    _library.append(library)


def _unregister_kernels() -> None:
    while _library:
        _library.pop()._destroy()


#: ``aten`` operators that ``Tensor.to`` is made of, handed to :func:`to` when a simulated
#: NPU tensor takes part (``__torch_function__``); the copies reach :func:`dispatch_copy`.
TO_OPERATORS = ("to", "_to_copy")


def route_to(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``aten.to`` / ``aten._to_copy`` with a simulated NPU operand, as :func:`to` takes it."""
    kwargs = {k: v for k, v in kwargs.items() if k not in ("layout", "pin_memory")}
    if "other" in kwargs:
        kwargs["tensor"] = kwargs.pop("other")
    if name == "_to_copy":
        kwargs["copy"] = True
    return to(args[0], *args[1:], **kwargs)


# --- pin_memory=True: torch_npu's pinned host allocator (issue 40, simulator fidelity) --------
# On torch_npu a factory given ``pin_memory=True`` (``torch.empty(4, pin_memory=True)``,
# ``t.new_zeros(4, pin_memory=True)``) allocates from the NPU host allocator, which torch reaches
# through the PrivateUse1 hooks (``NPUHooksInterface::getPinnedMemoryAllocator``); CPU-only
# torch has no hooks there ("Please register PrivateUse1HooksInterface"). While active, every
# torch function and tensor method whose signature takes ``pin_memory`` (read from torch's own
# stubs) serves it from the simulated pinned blocks; anything else goes to torch unchanged.


def _pin_memory_functions(stub: str, owner: str | None) -> list[str]:
    """The public names of ``stub`` (a ``.pyi`` of ``torch._C``; in class ``owner`` when
    given) whose signature has a ``pin_memory`` parameter."""
    import ast
    import os

    path = os.path.join(os.path.dirname(torch.__file__), "_C", stub)
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    body = tree.body
    if owner is not None:
        body = next(n.body for n in body if isinstance(n, ast.ClassDef) and n.name == owner)
    return sorted(
        {
            node.name
            for node in body
            if isinstance(node, ast.FunctionDef)
            and not node.name.startswith("_")
            and any(a.arg == "pin_memory" for a in (*node.args.args, *node.args.kwonlyargs))
        }
    )


def _pinning(factory: Any) -> Any:
    def make(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("pin_memory") is not True:
            return factory(*args, **kwargs)
        kwargs["pin_memory"] = False
        plain = factory(*args, **kwargs)
        if plain.device.type != "cpu":  # torch refuses it: only dense CPU tensors are pinned
            raise RuntimeError("Only dense CPU tensors can be pinned")
        pinned = memory.allocate_pinned(plain.shape, plain.dtype)
        _COPY(pinned, plain)
        return pinned

    make.__name__ = make.__qualname__ = getattr(factory, "__name__", "factory")
    make.__doc__ = getattr(factory, "__doc__", None)
    make.__wrapped__ = factory  # type: ignore[attr-defined]
    return make


#: ``(owner, names)`` of what takes ``pin_memory``: torch's functions and tensor methods.
PIN_MEMORY = (
    (torch, _pin_memory_functions("_VariableFunctions.pyi", None)),
    (torch.Tensor, _pin_memory_functions("__init__.pyi", "TensorBase")),
)


def activate() -> None:
    if _patches:
        return
    _register_device_guard()
    for owner, name, function in _REPLACED:
        _patches.set(owner, name, _kernel(function))
    for owner, names in PIN_MEMORY:
        for name in names:
            if hasattr(owner, name):
                _patches.set(owner, name, _pinning(getattr(owner, name)))
    _register_kernels()


def deactivate() -> None:
    _patches.undo()
    _unregister_kernels()
