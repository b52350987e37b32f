"""The libcst analysis: finds unsupported ExternalStream operations in one source file.

This package is the only part of extstream_lint that imports libcst. Adapters (flake8,
CLI) call :func:`analyze_source` and never touch libcst themselves; they ask
:func:`.projects.kept_findings` first, which needs no libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["analyze_source"]

if TYPE_CHECKING:
    from .engine import analyze_source


def __getattr__(name: str) -> Any:
    """``analyze_source`` imports libcst: only when asked for (PEP 562)."""
    if name == "analyze_source":
        from .engine import analyze_source

        return analyze_source
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
