"""G201 / G112: the copy checks, patched once when the hazard checks arm and left in place.

* **G201** (XST201): a ``non_blocking`` copy between torch_npu pinned host memory and the NPU
  while the NPU device's current stream is external records that stream in the pinned block;
  freeing the block aborts the process. ``npu_t.to("cpu", non_blocking=True)`` is always armed
  (torch_npu allocates its result pinned).
* **G112** (XST112): a copy between two NPUs records and blocks events on both devices' current
  streams: X03/X04 at once when either is external.

The wrappers decide from what they read at the call, cheapest first: no ``non_blocking`` and a
host source (most copies) end the check; then the arguments are parsed the way torch parses
them (``torch._C._nn._parse_to``: integer devices are the accelerator, positional
``non_blocking`` / ``copy``, a tensor's device and dtype); then the NPU device's current stream
through torch_npu's raw query; pinnedness (a driver query) last. A call torch cannot parse is
not judged: it goes to torch, which raises its own error.

**Identity.** torch and tensor subclasses compare ``func`` with ``torch.Tensor.to`` / ``copy_``
in ``__torch_function__`` (``UninitializedParameter`` allows only the original methods, so
``LazyLinear(3).to(torch.float64)`` must reach it as the original). Torch's C method looks its
own name up on ``torch.Tensor`` when it dispatches ``__torch_function__``, so a wrapper on the
class would be handed over instead. When the wrapped method ends in torch's C method, the
wrapper therefore does that dispatch first, exactly as the C method would (same overloaded
arguments, modes included), with ``func`` what ``torch.Tensor.<name>`` is without the guard,
looked up at the call (:func:`_public`: the original below the guard's wrapper, or a wrapper
another library put above it since, as ``transfer_to_npu`` imported after arming does):
subclasses and modes see what they see without the guard, and the C method runs under them as
before. What the checks read of a tensor is read with ``__torch_function__`` off whenever a
subclass or mode would see the read (issue 40).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import native_not_supported

from . import _state
from ._hazard_report import current_device, current_id, fail, npu_devices, stream_text
from ._patching import unwrap
from .patches import Point
from .predicate import EXTERNAL_MARK

__all__ = ["check_copy_call", "check_to_call", "copy_wrapper", "parse_to", "to_wrapper"]

Session = _state.Session

#: ``transfer_to_npu`` maps ``cuda`` devices to the NPU: with it imported, a ``cuda`` device
#: the guard sees (its wrapper sits below the guard's when it was imported first) is the NPU.
_TRANSFER = "torch_npu.contrib.transfer_to_npu"


#: A wrapper's first positional parameter when the call passed none (positional-only).
_NO: Any = object()

#: ``torch.device("cpu")``, filled when the first wrapper is made: a dict lookup tells it apart
#: in C, where ``device.type`` builds the backend's name.
_host: set[Any] = set()


def _is_npu(device: Any) -> bool:
    if device in npu_devices:
        return True
    if device in _host:
        return False
    return _TRANSFER in sys.modules and device.type == "cuda"


#: ``to(<str or device>)`` parsed once per spelling (issue 40: an NPU tensor's ``.to()`` parsed
#: its arguments on every call): what torch's parser made of it. Bounded: cleared when full.
_parsed_devices: dict[Any, Any] = {}
#: The spellings of :data:`_parsed_devices` naming the host (one lookup; cleared with it).
_host_spellings: set[Any] = set()
_MAX_PARSED = 256
#: The types of ``to``'s usual first argument, filled when the first wrapper is made: 0 for
#: ``torch.dtype`` (no device: no copy between devices), 1 for a ``str`` or ``torch.device``
#: (parsed once per spelling, :data:`_parsed_devices`).
_kinds: dict[type, int] = {}


def parse_to(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, bool] | None:
    """``(device or None, non_blocking)`` of ``Tensor.to(*args, **kwargs)`` as torch reads it;
    None when torch would reject the call (it then raises its own error, not the guard).

    The three overloads are brought to the first one (``to(device, dtype, non_blocking,
    copy)``): a tensor argument stands for its device and dtype (read from Python, as a
    subclass reports it), and ``copy``, which ``_parse_to`` refuses, is taken out.
    """
    torch = _state.torch
    Tensor = torch.Tensor  # type: ignore[union-attr]
    positional = list(args)
    if kwargs:
        kwargs = dict(kwargs)
        kwargs.pop("copy", None)
        other = kwargs.pop("tensor", None)
        if isinstance(other, Tensor):
            kwargs["device"], kwargs["dtype"] = other.device, other.dtype
    if positional:
        first = positional[0]
        if isinstance(first, Tensor):
            positional[:1] = [first.device, first.dtype]
        elif isinstance(first, torch.dtype):  # type: ignore[union-attr]
            positional.insert(0, None)
    if len(positional) >= 4:
        del positional[3]
    try:
        with torch._C.DisableTorchFunction():  # type: ignore[union-attr]
            device, _dtype, non_blocking, _format = torch._C._nn._parse_to(  # type: ignore[union-attr]
                *positional, **kwargs
            )
    except (TypeError, RuntimeError, ValueError):
        return None
    return device, bool(non_blocking)


def _index(device: Any) -> int:
    return current_device() if device.index is None else int(device.index)


def _staged(host: Any) -> bool:
    """torch_npu copies a non-contiguous (or expanded) host tensor through a pageable
    temporary, which records no stream in the pinned block (hazards.md, hazard 1:
    CopyKernel.cpp:206-216, 234-245): such a copy is safe. Storages are contiguous."""
    contiguous = getattr(host, "is_contiguous", None)
    return contiguous is not None and not contiguous()


def check_copy(session: Session, operation: str, src_device: Any, dst_device: Any,
               non_blocking: bool, host: Any, src_npu: bool | None = None,
               dst_npu: bool | None = None) -> None:  # fmt: skip
    """One copy from ``src_device`` to ``dst_device``; ``host`` is the CPU side (tensor or
    storage) whose pinnedness matters, None when the host side is pinned by construction.
    ``src_npu`` / ``dst_npu``: whether each device is the NPU, when the caller knows."""
    __tracebackhide__ = True
    if src_npu is None:
        src_npu = _is_npu(src_device)
    if dst_npu is None:
        dst_npu = _is_npu(dst_device)
    C = _state.torch_npu._C  # type: ignore[union-attr]
    if src_npu and dst_npu:
        src, dst = _index(src_device), _index(dst_device)
        if src == dst:
            return
        for index, which, api in ((src, "source", "NPUEvent::record"),
                                  (dst, "destination", "NPUEvent::block")):  # fmt: skip
            stream_id = current_id(index)
            if stream_id & EXTERNAL_MARK:
                fail(session, "XST112", operation, native_not_supported(api),
                     f"copy from npu:{src} to npu:{dst} while the {which} device's current "
                     f"stream is external ({stream_text(index, stream_id)})",
                     index, stream_id)  # fmt: skip
                return
        return
    if not non_blocking or src_npu == dst_npu:
        return
    host_side = src_device if dst_npu else dst_device
    if host_side not in _host and host_side.type != "cpu":
        return
    device = dst_device if dst_npu else src_device
    index = device.index
    if index is None:
        index = C._npu_getDevice()
    # torch_npu's raw query (``current_id``, inlined: every NPU tensor's non_blocking copy to
    # the host reads it)
    stream_id = int(C._npu_getCurrentStream(index)[0])
    if not stream_id & EXTERNAL_MARK:
        return
    if host is not None and (not host.is_pinned() or _staged(host)):
        return
    if dst_npu:
        what = f"from pinned host memory to npu:{index}"
    elif host is None:
        what = _TO_HOST.format(index)
    else:
        what = f"from npu:{index} into pinned host memory"
    _refuse_pinned(session, operation, what, index, stream_id)


_TO_HOST = "from npu:{} to host memory, whose result torch_npu allocates pinned"


def _refuse_pinned(session: Session, operation: str, what: str, index: int,
                   stream_id: int) -> None:  # fmt: skip
    __tracebackhide__ = True
    fail(session, "XST201", operation, "",
         f"non_blocking copy {what} while the current stream is external "
         f"({stream_text(index, stream_id)})", index, stream_id)  # fmt: skip


def _check_to(session: Session, operation: str, self: Any, args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> None:  # fmt: skip
    __tracebackhide__ = True
    # The common spellings read without torch's parser (issue 40: an NPU tensor's ``.to()``
    # parsed its arguments on every call): ``to(dtype)`` (no device) and ``to(device)`` /
    # ``to("npu:0", non_blocking=<bool>)``, the device parsed once per spelling.
    kind = None
    if len(args) == 1:
        if not kwargs:
            non_blocking = False
            kind = _kinds.get(type(args[0]))
        elif len(kwargs) == 1 and type(kwargs.get("non_blocking")) is bool:
            non_blocking = kwargs["non_blocking"]
            kind = _kinds.get(type(args[0]))
    if kind == 0:
        return  # a dtype: no copy between devices
    device = None if kind is None else _parsed_devices.get(args[0])
    if device is None:
        parsed = parse_to(args, {} if kind else kwargs)
        if parsed is None:
            return
        if kind and parsed[0] is not None:
            if len(_parsed_devices) >= _MAX_PARSED:
                _parsed_devices.clear()
                _host_spellings.clear()
            _parsed_devices[args[0]] = parsed[0]
            if parsed[0] in _host:
                _host_spellings.add(args[0])
        device = parsed[0]
        if not kind:
            non_blocking = parsed[1]
    if device is None:
        return
    # ``_is_npu`` inlined for the NPU and the host (dict lookups), a frame for anything else
    into_npu = device in npu_devices or (device not in _host and _is_npu(device))
    if not non_blocking and not into_npu:
        return  # blocking, into host memory (or another device): neither hazard
    src = self.device
    if device == src:
        return  # no copy between devices (or none at all)
    src_npu = src in npu_devices or (src not in _host and _is_npu(src))
    if not non_blocking and not src_npu:
        return  # blocking, and not between two NPUs: neither hazard
    if src_npu and device in _host:
        # non_blocking, device to host: torch_npu allocates the result pinned, so the copy is
        # a hazard exactly when the source device's current stream is external (decided
        # here, without check_copy's frame: the common non_blocking copy)
        index = src.index
        C = _state.torch_npu._C  # type: ignore[union-attr]
        if index is None:
            index = C._npu_getDevice()
        stream_id = int(C._npu_getCurrentStream(index)[0])
        if stream_id & EXTERNAL_MARK:
            _refuse_pinned(session, operation, _TO_HOST.format(index), index, stream_id)
        return
    check_copy(session, operation, src, device, non_blocking, self if into_npu else None,
               src_npu, into_npu)  # fmt: skip


def _dispatches(orig: Any) -> bool:
    """Whether ``orig`` ends in torch's C tensor method, which dispatches ``__torch_function__``
    itself (looking ``torch.Tensor.<name>`` up: it would find the guard's wrapper). That is
    torch's method itself, or a decorator around it (``functools.wraps``: ``transfer_to_npu``'s
    ``_wrapper_cuda``, which its ``_allowed_methods`` fix puts in ``UninitializedParameter``'s
    list): subclasses then get ``orig``, what ``torch.Tensor.<name>`` was without the guard.
    A function that is not such a decorator (the simulation's kernels) is called unchanged."""
    TensorBase = _state.torch._C.TensorBase  # type: ignore[union-attr]
    func = orig
    for _ in range(16):
        if getattr(func, "__objclass__", None) is TensorBase:
            return True
        func = getattr(func, "__wrapped__", None)
        if func is None:
            return False
    return False


class _Reentry(threading.local):
    """The tensor whose copy this thread's wrapper is handing to ``__torch_function__``."""

    tensor: Any = None


#: When another library's wrapper sits above the guard's (``transfer_to_npu`` applied after
#: arming), the method handed to ``__torch_function__`` is that wrapper, which calls the guard's
#: again: that inner call is the same copy, checked already (one warning in warn mode, not two).
_reentry = _Reentry()


def _public(owner: Any, name: str) -> Callable[[], Any]:
    """What torch's C method hands ``__torch_function__`` as ``func``: ``owner.<name>`` looked up
    at the call (``handle_torch_function`` reads ``torch.Tensor.<name>``), with the guard's own
    wrapper replaced by what it wraps, i.e. what the lookup finds without the guard. A wrapper
    another library put above the guard's (``transfer_to_npu``'s ``_wrapper_cuda``, which it
    also puts in ``UninitializedParameter``'s allowed methods) is handed over as it is."""
    cache: list[Any] = [None, None]

    def public() -> Any:
        top = getattr(owner, name)
        if top is not cache[0]:
            cache[0], cache[1] = top, unwrap(top)
        return cache[1]

    return public


def to_wrapper(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``Tensor.to`` (``.npu()`` / a remapped ``.cuda()`` end here too).

    Cheapest first. ``to(dtype)`` and ``to(<device or str>)`` with at most
    ``non_blocking=<bool>`` are decided in the wrapper (the spelling parsed once; a dtype or a
    blocking copy into host memory reads nothing, the rest the tensor's device, a
    ``non_blocking`` NPU-to-host copy the current stream too), ``orig`` getting the arguments
    as they came (issue 40: rebuilding ``*args`` / ``**kwargs`` cost more than the checks).
    Other calls read ``is_cpu`` first. The tensor's facts are read with ``__torch_function__``
    off whenever a subclass or mode would see the read: it sees no extra call (issue 40)."""
    torch = _state.torch
    unary = torch._C._has_torch_function_unary  # type: ignore[union-attr]
    handle = torch.overrides.handle_torch_function  # type: ignore[union-attr]
    quiet = torch._C.DisableTorchFunction  # type: ignore[union-attr]
    Tensor = torch.Tensor  # type: ignore[union-attr]
    dispatch = _dispatches(orig)
    public = _public(Tensor, point.attr)
    reentry = _reentry
    _host.add(torch.device("cpu"))  # type: ignore[union-attr]
    operation = point.operation
    #: What ``to``'s first argument usually is, never a tensor: ``isinstance(x, torch.Tensor)``
    #: of anything else than a tensor goes through torch's metaclass (~70 ns, on every copy).
    plain = frozenset({torch.dtype, torch.device, str, int, type(None)})  # type: ignore[union-attr]
    _kinds.update({torch.dtype: 0, torch.device: 1, str: 1})  # type: ignore[union-attr]
    kinds, parsed, devices, host_devices = _kinds, _parsed_devices, npu_devices, _host
    host_spellings = _host_spellings
    device_type, dtype_type = torch.device, torch.dtype  # type: ignore[union-attr]
    C = _state.torch_npu._C  # type: ignore[union-attr]
    mark = EXTERNAL_MARK

    def wrapper(
        self: Any, first: Any = _NO, /, *rest: Any, non_blocking: Any = _NO, **kwargs: Any
    ) -> Any:
        # The usual spellings first (issue 40), ``orig`` called with the arguments as they
        # came; the tensor's device read only where a check needs it, never in sight of a
        # subclass or mode; the rest below, as every call.
        if not rest and not kwargs:
            if non_blocking is _NO:
                blocking = True
            elif type(non_blocking) is bool:
                blocking = not non_blocking
            else:
                blocking = None  # torch's own reading of it: below
            spelled = type(first)
            if blocking is None:
                pass
            elif spelled is str or spelled is device_type:
                if first in host_spellings:  # into host memory
                    if blocking:  # neither hazard, nothing to read
                        if not dispatch or not unary(self):
                            if non_blocking is _NO:
                                return orig(self, first)
                            return orig(self, first, non_blocking=non_blocking)
                    elif not unary(self):
                        try:
                            src = self.device
                        except AttributeError:  # not a tensor: torch raises its TypeError
                            return orig(self, first, non_blocking=non_blocking)
                        index = devices.get(src)
                        if index is not None:
                            if session.live:
                                # into pinned memory torch_npu allocates: a hazard exactly
                                # when the source's current stream is external (raw query)
                                if index < 0:
                                    index = C._npu_getDevice()
                                stream_id = C._npu_getCurrentStream(index)[0]
                                if stream_id & mark and reentry.tensor is not self:
                                    __tracebackhide__ = True
                                    what = _TO_HOST.format(index)
                                    _refuse_pinned(session, operation, what, index, int(stream_id))
                        elif (
                            src not in host_devices and session.live and reentry.tensor is not self
                        ):
                            __tracebackhide__ = True
                            _check_to(session, operation, self, (first,),
                                      {"non_blocking": non_blocking})  # fmt: skip
                        return orig(self, first, non_blocking=non_blocking)
                elif not unary(self):
                    try:
                        src = self.device
                    except AttributeError:  # not a tensor: torch raises its own TypeError
                        if non_blocking is _NO:
                            return orig(self, first)
                        return orig(self, first, non_blocking=non_blocking)
                    # None: not parsed yet; own device: no copy; blocking from host: no hazard
                    device = parsed.get(first)
                    if (
                        src != device
                        and not (blocking and src in host_devices)
                        and session.live
                        and reentry.tensor is not self
                    ):
                        __tracebackhide__ = True
                        given = {} if non_blocking is _NO else {"non_blocking": non_blocking}
                        _check_to(session, operation, self, (first,), given)
                    if non_blocking is _NO:
                        return orig(self, first)
                    return orig(self, first, non_blocking=non_blocking)
            elif spelled is dtype_type and (not dispatch or not unary(self)):
                # a dtype: no copy between devices, nothing to read
                if non_blocking is _NO:
                    return orig(self, first)
                return orig(self, first, non_blocking=non_blocking)
        if non_blocking is not _NO:
            kwargs["non_blocking"] = non_blocking
        args = rest if first is _NO else (first, *rest)
        # Every other call: the facts read out of the sight of subclasses and modes.
        maybe = kwargs.get("non_blocking") if kwargs else False
        if not maybe and len(args) > 1:
            for arg in args:
                if arg is True:
                    maybe = True
                    break
        other = args[0] if args else kwargs.get("tensor") if kwargs else None
        overridden = unary(self)
        if type(other) not in plain and isinstance(other, Tensor) and unary(other):
            overridden = True
        else:
            other = None
        try:
            if overridden:
                with quiet():
                    host = self.is_cpu
            else:
                host = self.is_cpu
        except AttributeError:  # not a tensor: torch raises its own TypeError
            return orig(self, *args, **kwargs)
        if (maybe or not host) and session.live:
            __tracebackhide__ = True
            if overridden:
                if reentry.tensor is not self:
                    with quiet():
                        _check_to(session, operation, self, args, kwargs)
            elif kwargs or len(args) != 1 or (kind := kinds.get(type(args[0]))) is None:
                if reentry.tensor is not self:
                    _check_to(session, operation, self, args, kwargs)
            elif kind:
                # ``npu_t.to(<device or str>)``, blocking: decided here, without a frame or the
                # parser (issue 40). Into host memory, or to the tensor's own device: no copy
                # between devices, so neither hazard; the rest as every call.
                device = parsed.get(args[0])
                if (
                    device is None
                    or not (device in host_devices or (device in devices and device == self.device))
                ) and reentry.tensor is not self:
                    _check_to(session, operation, self, args, kwargs)
            # else ``to(dtype)``: no device, no copy between devices
        if dispatch and overridden:
            relevant = (self,) if other is None else (self, other)
            before, reentry.tensor = reentry.tensor, self
            try:
                return handle(public(), relevant, self, *args, **kwargs)
            finally:
                reentry.tensor = before
        return orig(self, *args, **kwargs)

    return wrapper


def copy_wrapper(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``Tensor.copy_(other, non_blocking=False)`` and ``UntypedStorage.copy_(src,
    non_blocking=None)``: without ``non_blocking``, only a copy into the NPU can be a hazard
    (between two NPUs), so a host destination ends the check. Facts are read as in
    :func:`to_wrapper`, out of the sight of subclasses and modes."""
    torch = _state.torch
    unary = torch._C._has_torch_function_unary  # type: ignore[union-attr]
    handle = torch.overrides.handle_torch_function  # type: ignore[union-attr]
    quiet = torch._C.DisableTorchFunction  # type: ignore[union-attr]
    Tensor = torch.Tensor  # type: ignore[union-attr]
    dispatch = _dispatches(orig)
    operation = point.operation
    tensor = point.operation.startswith("Tensor.")  # storages have no ``is_cpu``
    public = _public(Tensor if tensor else torch.UntypedStorage, point.attr)  # type: ignore[union-attr]
    reentry = _reentry
    _host.add(torch.device("cpu"))  # type: ignore[union-attr]
    cpu = torch.device("cpu")  # type: ignore[union-attr]
    host_devices = _host

    def wrapper(self: Any, first: Any = _NO, /, *rest: Any, **kwargs: Any) -> Any:
        # ``copy_(src)``, blocking, neither side seen by a subclass or mode: only a copy from
        # another NPU can be a hazard; from host memory or the same device, decided here
        # (issue 40), and ``orig`` called with the argument as it came
        if (
            tensor
            and not rest
            and not kwargs
            and first is not _NO
            and not unary(self)
            and not unary(first)
        ):
            try:
                host = self.is_cpu
            except AttributeError:  # not a tensor: torch raises its own TypeError
                return orig(self, first)
            if not host and session.live:
                src_device = getattr(first, "device", None)
                if (
                    src_device is not None
                    and src_device not in host_devices
                    and src_device != self.device
                    and reentry.tensor is not self
                ):
                    __tracebackhide__ = True
                    _check_copy_(session, operation, self, first, False)
            return orig(self, first)
        args = rest if first is _NO else (first, *rest)
        src = args[0] if args else kwargs.get("other", kwargs.get("src")) if kwargs else None
        if len(args) > 1:
            non_blocking = args[1] is True
        else:
            non_blocking = kwargs.get("non_blocking") is True if kwargs else False
        # ``unary`` first: a C test, False for anything but an overriding object, where
        # ``isinstance(src, torch.Tensor)`` goes through torch's metaclass on every copy
        overridden = tensor and (unary(self) or (unary(src) and isinstance(src, Tensor)))
        try:
            if overridden:
                with quiet():
                    host = self.is_cpu
            else:
                host = self.is_cpu if tensor else self.device == cpu
        except AttributeError:  # not a tensor or storage: torch raises its own TypeError
            return orig(self, *args, **kwargs)
        if (non_blocking or not host) and session.live:
            __tracebackhide__ = True
            if overridden:
                if reentry.tensor is not self:
                    with quiet():
                        _check_copy_(session, operation, self, src, non_blocking)
            elif non_blocking or not tensor:
                if reentry.tensor is not self:
                    _check_copy_(session, operation, self, src, non_blocking)
            else:
                # blocking, into a device tensor: only a copy from another NPU can be a
                # hazard; from host memory or the same device, decided here (issue 40)
                src_device = getattr(src, "device", None)
                if (
                    src_device is not None
                    and src_device != self.device
                    and src_device not in host_devices
                    and reentry.tensor is not self
                ):
                    _check_copy_(session, operation, self, src, non_blocking)
        if dispatch and overridden:
            relevant = (self, src) if isinstance(src, Tensor) else (self,)
            before, reentry.tensor = reentry.tensor, self
            try:
                return handle(public(), relevant, self, *args, **kwargs)
            finally:
                reentry.tensor = before
        return orig(self, *args, **kwargs)

    return wrapper


def _check_copy_(session: Session, operation: str, self: Any, src: Any,
                 non_blocking: bool) -> None:  # fmt: skip
    __tracebackhide__ = True
    dst_device = self.device
    src_device = getattr(src, "device", None)
    if src_device is None or src_device == dst_device:
        return
    if not non_blocking:  # blocking: only a copy between two NPUs can be a hazard
        if src_device not in _host and _is_npu(dst_device) and _is_npu(src_device):
            check_copy(session, operation, src_device, dst_device, False, None)
        return
    into_npu = _is_npu(dst_device)
    if not into_npu and getattr(self, "dtype", None) != getattr(src, "dtype", None):
        return  # device to host with a dtype change: staged (hazards.md, hazard 1)
    check_copy(session, operation, src_device, dst_device, non_blocking,
               src if into_npu else self)  # fmt: skip


#: The keywords of ``aten.to`` / ``aten._to_copy`` that ``Tensor.to``'s parser reads; the
#: others (``layout``, ``pin_memory``) say nothing about which devices the copy joins.
_TO_KEYWORDS = frozenset({"device", "dtype", "non_blocking", "copy", "memory_format", "other"})


def check_to_call(session: Session, operation: str, source: Any, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> None:  # fmt: skip
    """``torch.ops.aten.to`` / ``_to_copy`` (:mod:`extstream_guard._operators`): the same
    judgement as ``Tensor.to``'s, the facts read out of ``__torch_function__``'s sight."""
    __tracebackhide__ = True
    torch = _state.torch
    if not isinstance(source, torch.Tensor):  # type: ignore[union-attr]
        return  # the operator raises its own error
    if kwargs:
        kwargs = {key: value for key, value in kwargs.items() if key in _TO_KEYWORDS}
        if "other" in kwargs:  # aten.to.other names the tensor ``other``, Tensor.to ``tensor``
            kwargs["tensor"] = kwargs.pop("other")
    with torch._C.DisableTorchFunction():  # type: ignore[union-attr]
        _check_to(session, operation, source, args, kwargs)


def check_copy_call(session: Session, operation: str, dst: Any, src: Any,
                    non_blocking: bool) -> None:  # fmt: skip
    """``torch.ops.aten.copy_`` / ``copy`` / ``_copy_from``: judged as ``Tensor.copy_``."""
    __tracebackhide__ = True
    torch = _state.torch
    Tensor = torch.Tensor  # type: ignore[union-attr]
    if not isinstance(dst, Tensor) or not isinstance(src, Tensor):
        return
    with torch._C.DisableTorchFunction():  # type: ignore[union-attr]
        _check_copy_(session, operation, dst, src, non_blocking)
