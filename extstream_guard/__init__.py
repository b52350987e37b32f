"""extstream_guard: make torch_npu's unsupported external-stream operations fail early.

torch_npu raises a generic ``RuntimeError`` deep in C++ for what an ``ExternalStream`` cannot
do, sometimes after damage is done (a failed ``torch.npu.graph(g, stream=ext)`` leaves ``ext``
current; a refused HCCL collective has already bumped sequence counters). The guard wraps the
real class and entry points so each raises an :class:`ExternalStreamError` first, with the
linter's code, torch_npu's own text, the reason and the fixes.

Importing this package is cheap: it never imports torch_npu, libcst or flake8. torch_npu is
imported by :func:`install` and by the first access to :attr:`ExternalStream`.

    import extstream_guard
    extstream_guard.install()          # or: import extstream_guard.auto (EXTSTREAM_GUARD=...)
    with extstream_guard.installed("warn"):   # reference counted, safe across threads
        ...
"""

from __future__ import annotations

from typing import Any

from .errors import ExternalStreamError, ExternalStreamWarning, GuardCoverageWarning
from .install import MODES, get_mode, install, installed, uninstall
from .predicate import current_is_external, is_external

__all__ = [
    "MODES",
    "ExternalStream",
    "ExternalStreamError",
    "ExternalStreamWarning",
    "GuardCoverageWarning",
    "current_is_external",
    "get_mode",
    "install",
    "installed",
    "is_external",
    "uninstall",
]


def __getattr__(name: str) -> Any:
    """PEP 562: ``ExternalStream`` needs torch_npu, so it is built on first access only."""
    if name == "ExternalStream":
        from ._guarded import guarded_external_stream

        return guarded_external_stream()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)  # the public names only: not ``Any``, not ``annotations``
