"""The libcst analysis: finds unsupported ExternalStream operations in one source file.

This package is the only part of extstream_lint that imports libcst. Adapters (flake8,
CLI) call :func:`analyze_source` and never touch libcst themselves.
"""

from __future__ import annotations

from .engine import analyze_source

__all__ = ["analyze_source"]
