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


def cannot_analyse(reason: str, *, unreadable: bool = False) -> Finding:
    """The single XST000 finding of a file that could not be read or analysed, saying why.

    Every adapter builds these here. A file that cannot be read or decoded (``unreadable``)
    is the user's to fix, like flake8's E902. Otherwise the message is one sentence: what
    failed (``reason``, which says when it is extstream's bug) and the rule's advice (fix the
    file, or silence it on line 1); the rule's "why" would only repeat that it failed.
    """
    from .contract import RULES

    if unreadable:
        return Finding(1, 0, "XST000", f"XST000 {reason}")
    message = f"XST000 cannot analyse this file ({reason}); {RULES['XST000'].fix_short}"
    return Finding(1, 0, "XST000", message)
