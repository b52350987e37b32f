"""torch_npu's copy kernels and pinned-memory hooks, standing in for torch's C++ dispatch.

A CPU-only torch has no NPU device and no pinned memory, so while the simulation is active
:func:`activate` puts Python functions (frames of module ``torch_npu._C``, like every simulated
kernel) in place of ``Tensor.to``, ``Tensor.copy_``, ``Tensor.pin_memory``, ``Tensor.is_pinned``,
``UntypedStorage.copy_`` and ``UntypedStorage.is_pinned``; :func:`deactivate` puts torch's back.
Copies that involve no simulated NPU tensor go to torch's own method unchanged. The guard wraps
whatever the class holds, so it sits above these "kernels" exactly as it sits above torch's C
methods on a real installation.

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

    result = tensor.as_subclass(SimNPUTensor)
    result._sim_index = device
    return result


def _plain(tensor: torch.Tensor) -> torch.Tensor:
    with torch._C.DisableTorchFunctionSubclass():
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


def copy_(self: torch.Tensor, other: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    """``Tensor.copy_`` (torch names the source ``other``): torch_npu's copy kernel when
    either side is on the NPU."""
    src = other
    dst_index, src_index = npu_index(self), npu_index(src)
    if dst_index is None and src_index is None:
        return _COPY(self, src, non_blocking)
    _check_flag("copy_", non_blocking, none=False)
    if dst_index is not None and src_index is not None and dst_index != src_index:
        _cross_device(src_index, dst_index)
    with torch._C.DisableTorchFunctionSubclass():
        _COPY(self, src)
    if non_blocking and (dst_index is None) != (src_index is None):
        host, device = (self, src_index) if dst_index is None else (src, dst_index)
        staged = not host.is_contiguous() or (dst_index is None and self.dtype != src.dtype)
        if not staged:
            memory.record_on_block(host, device)
    return self


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


def pin_memory(self: torch.Tensor, device: Any = None) -> torch.Tensor:
    """``Tensor.pin_memory``: a copy in a fresh pinned block (or ``self`` if already pinned)."""
    if npu_index(self) is not None:
        raise RuntimeError("cannot pin 'npu' memory: only dense CPU tensors can be pinned")
    if memory.is_pinned(self):
        return self
    result = memory.allocate_pinned(self.shape, self.dtype)
    _COPY(result, self)
    return result


def is_pinned(self: Any, device: Any = None) -> bool:
    """The driver query: is this host memory in a live pinned block?"""
    return npu_index(self) is None and memory.is_pinned(self)


def _kernel(function: Any) -> Any:
    """``function`` with its frames in module ``torch_npu._C`` (a real kernel has none)."""
    kernel = types.FunctionType(
        function.__code__, dict(globals(), __name__="torch_npu._C"), function.__name__,
        function.__defaults__,
    )  # fmt: skip
    kernel.__qualname__ = function.__qualname__
    return kernel


_REPLACED = (
    (torch.Tensor, "to", to),
    (torch.Tensor, "copy_", copy_),
    (torch.Tensor, "pin_memory", pin_memory),
    (torch.Tensor, "is_pinned", is_pinned),
    (torch.UntypedStorage, "copy_", storage_copy_),
    (torch.UntypedStorage, "is_pinned", is_pinned),
)


# --- torch.ops.aten: the copy operators called directly (issue 40, item 7) ------------------
# On torch_npu, ``torch.ops.aten._to_copy(p, device="npu", non_blocking=True)`` reaches
# torch_npu's copy kernel through the dispatcher, as ``p.to(...)`` does; CPU-only torch has no
# NPU kernel there ("PyTorch is not linked with support for npu devices"). While active, each
# copy operator object (packet and overloads) gets a subclass of its class whose call sends
# what involves the simulated NPU to the kernels above (the functions, never ``torch.Tensor``'s
# attributes, which the guard wraps), as the dispatcher would; the rest goes to torch.

#: Keywords of ``aten.to`` / ``_to_copy`` the simulated ``to`` does not take.
_LAYOUT_KEYWORDS = ("layout", "pin_memory")


def _is_npu_device(device: Any) -> bool:
    if device is None or isinstance(device, torch.Tensor):
        return False
    if isinstance(device, int):
        return False  # an integer device is the accelerator: not one the simulation spells
    return torch.device(device).type == NPU


def _route(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """What torch_npu's kernel makes of ``aten.<name>(*args, **kwargs)``, or ``_TORCH`` when
    no simulated NPU tensor or device is involved."""
    if not args:
        return _TORCH
    first = args[0]
    if name in ("_to_copy", "to"):
        device = kwargs.get("device", args[1] if len(args) > 1 else None)
        if npu_index(first) is None and not _is_npu_device(device):
            other = kwargs.get("other", args[1] if len(args) > 1 else None)
            if npu_index(other) is None:
                return _TORCH
        kwargs = {k: v for k, v in kwargs.items() if k not in _LAYOUT_KEYWORDS}
        if "other" in kwargs:
            kwargs["tensor"] = kwargs.pop("other")
        if name == "_to_copy":
            kwargs["copy"] = True
        return to(first, *args[1:], **kwargs)
    other = args[1] if len(args) > 1 else kwargs.get("src", kwargs.get("dst"))
    flag = args[2] if len(args) > 2 else kwargs.get("non_blocking", False)
    if npu_index(first) is None and npu_index(other) is None:
        return _TORCH
    if name == "_copy_from":
        return copy_(other, first, flag)
    if name == "copy":  # functional: a new tensor like ``self`` holding ``src``
        return copy_(first.clone(), other, flag)
    return copy_(first, other, flag)


_TORCH: Any = object()
_OPERATORS = ("_to_copy", "to", "copy_", "copy", "_copy_from")
_reclassed: list[tuple[Any, type, type]] = []


def _dispatching_class(base: type, name: str) -> type:
    call = base.__call__  # type: ignore[operator]

    def __call__(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        result = _route(name, args, kwargs)
        return call(self, *args, **kwargs) if result is _TORCH else result

    return type(base.__name__, (base,), {"__call__": __call__, "__module__": base.__module__})


def _reclass_operators() -> None:
    for name in _OPERATORS:
        packet = getattr(torch.ops.aten, name)
        for op in (packet, *(getattr(packet, o) for o in packet.overloads())):
            before = type(op)
            op.__class__ = after = _dispatching_class(before, name)
            _reclassed.append((op, before, after))


def _restore_operators() -> None:
    while _reclassed:
        op, before, after = _reclassed.pop()
        if type(op) is after:  # the guard's class, if still on, goes with its uninstall
            op.__class__ = before


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
    for owner, name, function in _REPLACED:
        _patches.set(owner, name, _kernel(function))
    for owner, names in PIN_MEMORY:
        for name in names:
            if hasattr(owner, name):
                _patches.set(owner, name, _pinning(getattr(owner, name)))
    _reclass_operators()


def deactivate() -> None:
    _patches.undo()
    _restore_operators()
