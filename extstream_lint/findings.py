"""The result type shared by the analysis and its adapters (flake8, CLI, formats)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One diagnostic. ``line`` is 1-based, ``col`` a 0-based character offset (flake8's)."""

    line: int
    col: int
    code: str
    #: The full one-line message, starting with the code (flake8 convention).
    message: str


def cannot_analyse(reason: str) -> Finding:
    """The single XST000 finding of a file whose analysis failed, saying why."""
    from .contract import RULES

    message = RULES["XST000"].message(f"could not analyse this file ({reason})", "")
    return Finding(1, 0, "XST000", message)
