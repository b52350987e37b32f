"""Process-wide guard state shared by the installer and the wrappers (no imports of torch)."""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

#: One lock for install / uninstall / lazy work-class patching (like ``mock.patch``'s users
#: expect: concurrent installs never interleave their patches).
LOCK = threading.RLock()

#: "off" when not installed; wrappers only exist while it is "raise" or "warn". The guarded
#: ``extstream_guard.ExternalStream`` class raises when it is "off".
mode: str = "off"
torch_npu: ModuleType | None = None
torch: ModuleType | None = None
#: ``torch._C._get_privateuse1_backend_name()`` at install time ("npu" under torch_npu).
npu_device_type: str = "npu"
#: The real ``torch_npu.npu.ExternalStream`` (constructor checks skip its subclasses in
#: ``Stream.__new__``: they were validated by their own ``__new__``).
external_class: Any = None
#: Base ``torch.distributed.Work``: never patched, it is shared by every backend.
work_base: Any = None
