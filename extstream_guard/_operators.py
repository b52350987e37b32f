"""G201 / G112 through ``torch.ops.aten`` (issue 40, item 7): the copy operators called directly.

``torch.ops.aten._to_copy(p, device="npu", non_blocking=True)`` (and ``aten.to``, ``copy_``,
``copy``, ``_copy_from``, each packet and each overload) reaches the dispatcher without passing
``Tensor.to`` / ``copy_``, so the copy wrappers of :mod:`extstream_guard._copies` never see it,
and the pinned block records the external stream all the same.

**Where the check stands.** Three places were weighed:

* a ``TorchFunctionMode`` pushed while an external stream is current sees every operator, but
  then every operator of a region (the model's whole forward) pays a Python
  ``__torch_function__`` call, for five operators out of thousands;
* a dispatcher kernel (``torch.library``) for these operators would have to sit on the CPU key
  (a pinned source is a CPU tensor), where every host ``.to()`` in the program would run in
  Python;
* the operator objects themselves. ``torch.ops.aten._to_copy`` is one ``OpOverloadPacket``,
  ``.default`` one ``OpOverload``, each created once and cached; torch's compiler and the
  dispatcher compare them by identity and by ``isinstance``, so they cannot be replaced. Their
  class can: :func:`arm` gives each of these objects a subclass of its own class whose
  ``__call__`` checks first (the object stays the same object, ``isinstance`` holds, the
  schema and the C++ operator are untouched). Only calls of these operators through
  ``torch.ops`` pay the check; ``Tensor.to`` and every other operator reach C++ as before.

They are re-classed when the hazard checks arm (the first external stream), not before, and
:func:`restore` gives each object its class back at uninstall, only where the guard's class is
still the one in place (as :mod:`extstream_guard._patching` restores attributes).

Not covered: the C methods of ``torch._C.TensorBase`` called unbound
(``torch._C.TensorBase.to(p, "npu", non_blocking=True)``): an immutable C type, like
``torch.Stream`` (docs/guard.md, Limitations).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _state
from ._copies import check_copy_call, check_to_call

__all__ = ["OPERATORS", "arm", "restore"]

#: ``aten`` operators that copy a tensor between devices, and how each names its two sides:
#: ``to`` the source is ``self`` and the destination a device argument (``Tensor.to``'s
#: overloads, ``_to_copy``'s keyword-only ones); ``copy_into`` the destination is ``self``, the
#: source the next argument (``copy_``, the functional ``copy``); ``copy_from`` the source is
#: ``self``, the destination tensor the next (``_copy_from``, the backends' copy hook).
OPERATORS: tuple[tuple[str, str], ...] = (
    ("_to_copy", "to"),
    ("to", "to"),
    ("copy_", "copy_into"),
    ("copy", "copy_into"),
    ("_copy_from", "copy_from"),
)

#: Each re-classed object with the class it had.
_records: list[tuple[Any, type, type]] = []
#: The checking subclass made for each (original class, kind), once per process.
_classes: dict[tuple[type, str, str], type] = {}


def _check(kind: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """The copy ``aten.<name>(*args, **kwargs)`` makes, judged as the tensor methods' are."""
    __tracebackhide__ = True
    session = _state.session
    if session is None or not session.live or not args:
        return
    operation = f"torch.ops.aten.{name}"
    if kind == "to":
        if any(_cuda(value) for value in (*args[1:], *kwargs.values())):
            return  # transfer_to_npu remaps tensor methods, not operators: CUDA stays CUDA

        check_to_call(session, operation, args[0], args[1:], kwargs)
        return
    other = args[1] if len(args) > 1 else kwargs.get("src", kwargs.get("dst"))
    flag = args[2] if len(args) > 2 else kwargs.get("non_blocking", False)
    dst, src = (args[0], other) if kind == "copy_into" else (other, args[0])
    check_copy_call(session, operation, dst, src, flag is True)


def _cuda(value: Any) -> bool:
    """A device argument naming CUDA (``"cuda"``, ``"cuda:1"``, ``torch.device("cuda")``)."""
    if type(value) is str:
        return value.startswith("cuda")
    return getattr(value, "type", None) == "cuda" and type(value).__name__ == "device"


def _checking_class(base: type, name: str, kind: str) -> type:
    """A subclass of ``base`` (``OpOverloadPacket``, ``OpOverload`` or a class somebody else
    gave the object) whose call checks the copy first, then calls ``base``'s."""
    key = (base, name, kind)
    made = _classes.get(key)
    if made is not None:
        return made
    call: Callable[..., Any] = base.__call__  # type: ignore[operator]

    def __call__(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        if _state.hazards_armed:
            __tracebackhide__ = True
            _check(kind, name, args, kwargs)
        return call(self, *args, **kwargs)

    made = type(base.__name__, (base,), {"__call__": __call__, "__module__": base.__module__})
    made.__qualname__ = base.__qualname__
    _classes[key] = made
    return made


def _objects(torch: Any, name: str) -> list[Any]:
    packet = getattr(torch.ops.aten, name, None)
    if packet is None:
        return []
    return [packet, *(getattr(packet, overload) for overload in packet.overloads())]


def arm() -> None:
    """Give each copy operator object its checking class (once per installation)."""
    torch = _state.torch
    if torch is None or _records:
        return
    for name, kind in OPERATORS:
        for op in _objects(torch, name):
            before = type(op)
            after = _checking_class(before, name, kind)
            op.__class__ = after
            _records.append((op, before, after))


def restore() -> None:
    """Give each object its class back, where the guard's class is still the one it has."""
    while _records:
        op, before, after = _records.pop()
        if type(op) is after:
            op.__class__ = before
