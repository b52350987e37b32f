"""Constructor validation for external streams (rules XST001 and XST002).

torch_npu parses ``stream_ptr`` with the C format ``K`` (no overflow check) and treats 0 as "no
pointer", so ``ExternalStream(0)`` silently becomes an ordinary pool stream, ``True`` / ``-1`` /
``2**64 + 5`` register garbage, and ``None`` / ``ctypes.c_void_p`` / floats raise a bare
``TypeError``. Non-zero ``stream_id`` / ``device_index`` / ``device_type`` make it ignore the
pointer altogether. These checks run before any of that.
"""

from __future__ import annotations

import ctypes
import operator
from dataclasses import dataclass
from typing import Any

from extstream_lint.contract import ID_KEYWORDS, NATIVE_PRIORITY, NATIVE_SYNC_LAUNCH

__all__ = ["Problem", "check_external", "check_stream_ptr_kwargs", "normalize_pointer"]

_MAX_POINTER = (1 << 64) - 1


@dataclass(frozen=True)
class Problem:
    """Why a constructor call is refused: the rule, what was seen, torch_npu's own text."""

    code: str
    detail: str
    native: str = ""
    #: torch_npu itself raises TypeError here; the guard's error is then also a TypeError.
    type_error: bool = False


def _not_int(value: Any) -> Problem:
    name = "None" if value is None else type(value).__name__
    return Problem(
        "XST001",
        f"stream_ptr={value!r} is not an integer pointer",
        native=f"argument 6 must be int, not {name}",
        type_error=True,
    )


def normalize_pointer(value: Any) -> tuple[int, Problem | None]:
    """Return ``(pointer, problem)``; ``c_void_p`` and ``__index__`` objects become ints."""
    if isinstance(value, bool):
        return 0, Problem("XST001", f"stream_ptr={value!r} is a bool, not a pointer")
    if isinstance(value, ctypes.c_void_p):
        if value.value is None:
            return 0, Problem(
                "XST001",
                "stream_ptr is a null ctypes.c_void_p",
                native="argument 6 must be int, not c_void_p",
                type_error=True,
            )
        pointer = int(value.value)
    elif isinstance(value, int):
        pointer = int(value)
    elif value is not None and hasattr(type(value), "__index__"):
        pointer = operator.index(value)
    else:
        return 0, _not_int(value)
    if pointer == 0:
        return 0, Problem(
            "XST001",
            "stream_ptr=0 is a null pointer, for which torch_npu silently returns an "
            "ordinary pool stream",
        )
    if pointer < 0 or pointer > _MAX_POINTER:
        return 0, Problem(
            "XST001", f"stream_ptr={pointer:#x} is outside the unsigned 64-bit pointer range"
        )
    return pointer, None


def _keyword_problem(kwargs: dict[str, Any], priority: Any) -> Problem | None:
    if isinstance(priority, int) and priority != 0:
        return Problem("XST002", f"priority={priority!r} was given", native=NATIVE_PRIORITY)
    sync = kwargs.get("is_sync_launch", 0)
    if isinstance(sync, int) and sync != 0:
        return Problem("XST002", f"is_sync_launch={sync!r} was given", native=NATIVE_SYNC_LAUNCH)
    for name in ID_KEYWORDS:  # the ``unpack3`` branch ignores the pointer
        value = kwargs.get(name, 0)
        if isinstance(value, int) and value != 0:
            return Problem(
                "XST002", f"{name}={value!r} was given, which makes torch_npu ignore stream_ptr"
            )
    return None


def check_external(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Problem | None, tuple[Any, ...], dict[str, Any]]:
    """Validate ``ExternalStream(stream_ptr, device=None, **kwargs)`` arguments.

    Returns the problem (or None) and the arguments to pass on, with an accepted
    ``c_void_p`` / ``__index__`` pointer replaced by its int. Calls that torch_npu rejects
    by signature (no pointer, too many positionals) are passed on untouched.
    """
    if args:
        raw, rest, from_kw = args[0], args[1:], False
    elif "stream_ptr" in kwargs:
        raw, rest, from_kw = kwargs["stream_ptr"], (), True
    else:
        return None, args, kwargs
    pointer, problem = normalize_pointer(raw)
    if problem is None:
        problem = _keyword_problem(kwargs, kwargs.get("priority", 0))
    if problem is not None or pointer is raw:
        return problem, args, kwargs
    if from_kw:
        return None, args, {**kwargs, "stream_ptr": pointer}
    return None, (pointer, *rest), kwargs


def check_stream_ptr_kwargs(
    args: tuple[Any, ...], kwargs: dict[str, Any], *, sync_launch: bool = False
) -> tuple[Problem | None, dict[str, Any]]:
    """Validate ``Stream(device=None, priority=0, stream_ptr=...)`` / ``SyncLaunchStream(...)``.

    Only called when ``stream_ptr`` is present. ``SyncLaunchStream`` always passes
    ``is_sync_launch=1``, so any non-null pointer is refused.
    """
    pointer, problem = normalize_pointer(kwargs["stream_ptr"])
    if problem is None:
        priority = args[1] if len(args) > 1 else kwargs.get("priority", 0)
        if sync_launch:
            problem = Problem(
                "XST002",
                "SyncLaunchStream always sets is_sync_launch=1",
                native=NATIVE_SYNC_LAUNCH,
            )
        else:
            problem = _keyword_problem(kwargs, priority)
    if problem is None and pointer is not kwargs["stream_ptr"]:
        kwargs = {**kwargs, "stream_ptr": pointer}
    return problem, kwargs
