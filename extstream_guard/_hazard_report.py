"""What the hazard checks (issue 17) share: the current stream read cheaply, and the report.

The checks decide from state they read when the call is made, never from switches the guard
tracked: the current stream comes from torch_npu's own raw query (``_npu_getCurrentStream``,
no Python stream object), so a stream made current by any path (C++, a ``SyncLaunchStream``
context, a ``set_stream`` bound before the guard armed) is seen as it is.
"""

from __future__ import annotations

import warnings
from typing import Any

from . import _state
from ._frames import spelled, user_stacklevel
from .errors import ExternalStreamError, ExternalStreamWarning, build_message

__all__ = ["current_device", "current_id", "fail", "note_devices", "npu_devices", "stream_text"]

Session = _state.Session


#: ``torch.device("npu", i)`` for every device (and ``torch.device("npu")``: -1): a dict
#: lookup compares devices in C, where ``device.type`` builds the backend's name (~0.5 us).
npu_devices: dict[Any, int] = {}


def note_devices(count: int) -> None:
    """At arming: the NPU devices a copy or a backward root can be on."""
    torch, npu = _state.torch, _state.npu_device_type
    npu_devices.clear()
    npu_devices[torch.device(npu)] = -1  # type: ignore[union-attr]
    for index in range(count):
        npu_devices[torch.device(npu, index)] = index  # type: ignore[union-attr]


def current_device() -> int:
    """This thread's current NPU device index (torch_npu's raw query)."""
    return int(_state.torch_npu._C._npu_getDevice())  # type: ignore[union-attr]


def current_id(index: int | None) -> int:
    """The raw id of this thread's current stream on NPU ``index`` (None: current device)."""
    C = _state.torch_npu._C  # type: ignore[union-attr]
    if index is None:
        index = C._npu_getDevice()
    return int(C._npu_getCurrentStream(index)[0])


def fail(session: Session, code: str, operation: str, native: str, detail: str,
         device: Any, stream_id: Any) -> None:  # fmt: skip
    """Raise (or warn about, or ignore: by the session's mode) one refused call."""
    __tracebackhide__ = True  # pytest shows the user's frames, not the guard's
    mode = session.mode()
    if mode == "off":
        return
    operation = spelled(operation)
    message = build_message(code, operation, native, detail=detail, stopped=mode == "raise")
    if mode == "warn":
        warnings.warn(ExternalStreamWarning(message), stacklevel=user_stacklevel())
        return
    raise ExternalStreamError(
        message, code=code, operation=operation, device=device, stream_id=stream_id
    )


def stream_text(index: int, stream_id: int) -> str:
    return f"npu:{index}, stream_id={stream_id:#x}"
