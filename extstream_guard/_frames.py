"""Which stack frame a guard warning names: the first one outside the libraries."""

from __future__ import annotations

import sys

#: Frames of these modules are skipped: the guard's own (compiled wrappers carry this
#: package's ``__name__``), torch_npu's and torch's (a guarded callee reached through torch_npu
#: or torch.distributed code warns at the user's call), and contextlib (``installed()``).
_LIBRARIES = ("extstream_guard", "torch_npu", "torch", "contextlib")
_PREFIXES = tuple(f"{name}." for name in _LIBRARIES)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` issued by this function's caller name
    the innermost frame outside the libraries above (1, the caller, if there is none)."""
    frame = sys._getframe(1)  # the caller, who calls warnings.warn
    level = 1
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name not in _LIBRARIES and not name.startswith(_PREFIXES):
            return level
        frame = frame.f_back
        level += 1
    return 1
