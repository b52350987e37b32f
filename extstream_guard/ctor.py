"""Constructor validation for external streams (rules XST001 and XST002).

torch_npu parses ``stream_ptr`` with the C format ``K`` (no overflow check) and treats 0 as "no
pointer", so ``ExternalStream(0)`` silently becomes an ordinary pool stream, ``True`` / ``-1`` /
``2**64 + 5`` register garbage, and ``None`` / ``ctypes.c_void_p`` / floats raise a bare
``TypeError``. Non-zero ``stream_id`` / ``device_index`` / ``device_type`` make it ignore the
pointer altogether. These checks run before any of that, except where torch_npu rejects the
call with its own error (a non-integer pointer): that error comes first, as without the guard,
so code that passes under the guard also passes without it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from extstream_lint.contract import ID_KEYWORDS, NATIVE_PRIORITY, NATIVE_SYNC_LAUNCH

__all__ = ["Problem", "check_external", "check_stream_ptr_kwargs", "pointer_problem"]

_MAX_POINTER = (1 << 64) - 1
#: The keywords ``THNPStream_pynew`` parses with ``"|iiLLLK"``, each with its C range: ``i``
#: (C int) and ``L`` (long long) take any object with ``__index__`` (numpy integers), ``K``
#: (the pointer) only an ``int``. Any other keyword, or a value the unit refuses, is the
#: parser's own ``TypeError`` / ``OverflowError`` before any external-stream check.
_INT, _LONG_LONG = (-(1 << 31), (1 << 31) - 1), (-(1 << 63), (1 << 63) - 1)
_UNITS = {"priority": _INT, "is_sync_launch": _INT, **dict.fromkeys(ID_KEYWORDS, _LONG_LONG)}


def parsed_int(name: str, value: Any) -> int | None:
    """``value`` as torch_npu's parser reads keyword ``name`` (``priority``, ``is_sync_launch``
    or an id keyword), None when the parser refuses it (its own error then comes first)."""
    if isinstance(value, int):
        number = int(value)
    elif isinstance(value, float) or not hasattr(type(value), "__index__"):
        return None
    else:
        try:
            number = operator.index(value)
        except Exception:  # the parser gets the same error from __index__
            return None
    low, high = _UNITS[name]
    return number if low <= number <= high else None


def _parses(kwargs: dict[str, Any]) -> bool:
    """Whether torch_npu's argument parser accepts these keywords (else its error comes first).

    ``device`` is the Python wrappers' own parameter, resolved before the parser runs.
    """
    for name, value in kwargs.items():
        if name == "device":
            continue
        if name == "stream_ptr":
            if not isinstance(value, int):
                return False
        elif name not in _UNITS or parsed_int(name, value) is None:
            return False
    return True


@dataclass(frozen=True)
class Problem:
    """Why a constructor call is refused: the rule, what was seen, torch_npu's own text."""

    code: str
    detail: str
    native: str = ""


def pointer_problem(value: Any) -> Problem | None:
    """What is wrong with ``stream_ptr`` that torch_npu would silently accept, or None.

    Only ints reach torch_npu's ``K`` parser; anything else (``None``, ``ctypes.c_void_p``,
    objects with ``__index__``, floats, strings) gets torch_npu's own ``TypeError``, which the
    guard lets come first, exactly as without it.
    """
    if isinstance(value, bool):
        return Problem("XST001", f"stream_ptr={value!r} is a bool, not a pointer")
    if not isinstance(value, int):
        return None
    if value == 0:
        return Problem(
            "XST001",
            "stream_ptr=0 is a null pointer, for which torch_npu silently returns an "
            "ordinary pool stream",
        )
    if value < 0 or value > _MAX_POINTER:
        return Problem(
            "XST001", f"stream_ptr={int(value):#x} is outside the unsigned 64-bit pointer range"
        )
    return None


def _keyword_problem(kwargs: dict[str, Any], priority: Any) -> Problem | None:
    if parsed_int("priority", priority):
        return Problem("XST002", f"priority={priority!r} was given", native=NATIVE_PRIORITY)
    sync = kwargs.get("is_sync_launch", 0)
    if parsed_int("is_sync_launch", sync):
        return Problem("XST002", f"is_sync_launch={sync!r} was given", native=NATIVE_SYNC_LAUNCH)
    for name in ID_KEYWORDS:  # the ``unpack3`` branch ignores the pointer
        value = kwargs.get(name, 0)
        if parsed_int(name, value):
            return Problem(
                "XST002", f"{name}={value!r} was given, which makes torch_npu ignore stream_ptr"
            )
    return None


def check_external(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Problem | None:
    """Validate ``ExternalStream(stream_ptr, device=None, **kwargs)`` arguments.

    Calls that torch_npu rejects itself (no pointer, too many positionals, a non-integer
    pointer) are not judged: its own error comes first.
    """
    if args:
        raw = args[0]
    elif "stream_ptr" in kwargs:
        raw = kwargs["stream_ptr"]
    else:
        return None
    if not isinstance(raw, int) or not _parses(kwargs):
        return None
    return pointer_problem(raw) or _keyword_problem(kwargs, kwargs.get("priority", 0))


def check_stream_ptr_kwargs(
    args: tuple[Any, ...], kwargs: dict[str, Any], *, sync_launch: bool = False
) -> Problem | None:
    """Validate ``Stream(device=None, priority=0, stream_ptr=...)`` / ``SyncLaunchStream(...)``.

    Only called when ``stream_ptr`` is present. ``SyncLaunchStream`` always passes
    ``is_sync_launch=1``, so any non-null pointer is refused.
    """
    raw = kwargs["stream_ptr"]
    priority = args[1] if len(args) > 1 else kwargs.get("priority", 0)
    if not isinstance(raw, int) or parsed_int("priority", priority) is None:
        return None
    if not _parses(kwargs):
        return None
    problem = pointer_problem(raw)
    if problem is not None:
        return problem
    if sync_launch:
        return Problem(
            "XST002", "SyncLaunchStream always sets is_sync_launch=1", native=NATIVE_SYNC_LAUNCH
        )
    return _keyword_problem(kwargs, priority)
