"""Process-wide guard state shared by the installer and the wrappers (no imports of torch)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

#: One lock for install / uninstall / lazy work-class patching (like ``mock.patch``'s users
#: expect: concurrent installs never interleave their patches).
LOCK = threading.RLock()

#: The effective mode: "raise", "warn" or "off". While the guard is installed it may still be
#: "off" (an ``installed("off")`` block is the most recent reference): wrappers are then inert.
#: The guarded ``extstream_guard.ExternalStream`` class raises when it is "off".
mode: str = "off"
torch_npu: ModuleType | None = None
torch: ModuleType | None = None
#: ``torch._C._get_privateuse1_backend_name()`` at install time ("npu" under torch_npu).
npu_device_type: str = "npu"
#: The real ``torch_npu.npu.ExternalStream`` (constructor checks skip its subclasses in
#: ``Stream.__new__``: they were validated by their own ``__new__``).
external_class: Any = None


class Session:
    """The wrappers made by one installation share one session.

    A session is live from install to uninstall, then inert forever: a wrapper that survives
    its installation (a user's ``mock.patch`` restored it after :func:`uninstall`) must let
    every call through unchanged, whatever later installations do.
    """

    __slots__ = ("live",)

    def __init__(self, live: bool = True) -> None:
        self.live = live

    def mode(self) -> str:
        """What a wrapper of this session does on a refused call: raise, warn or nothing."""
        return mode if self.live else "off"


class ClassSession(Session):
    """The session of the guarded ``extstream_guard.ExternalStream`` class: always live, and it
    raises when the guard is not installed (using the guarded class is the opt-in)."""

    __slots__ = ()

    def mode(self) -> str:
        return "raise" if mode == "off" else mode


#: Per thread: ``inside`` is True while a guarded collective runs. ``dist.all_reduce`` ends in the
#: guarded ``ProcessGroup.allreduce`` on the same tensors; the outer wrapper has checked them,
#: so the inner one only calls through (one warning per call in warn mode, not two).
collective_calls = threading.local()

#: The hazard checks (issue 17) are patched: armed by the first external stream the live
#: installation saw made (or found current at install), disarmed by uninstall.
hazards_armed: bool = False
#: Set by the live installation: what the constructor wrappers call when they see the first
#: external stream made (``install`` arms the hazard checks; a hook, so that the wrappers
#: import neither ``install`` nor ``hazards``).
on_first_external: Callable[[], None] | None = None

#: The live installation's session (None while the guard is not installed).
session: Session | None = None
CLASS_SESSION = ClassSession()
