"""The one table of what the analysis does not follow yet, measured by the conformance suite.

Keyed by (case id, twin): ``POSITIVE`` when the refused operation is not reported (recall),
``NEGATIVE`` when anything the case does not expect is reported (precision: in the twin that
must stay silent, or a wrong code or line in the positive one). Each row turns the
case's test into ``xfail(strict=True)``: a gap that gets fixed fails the suite until its row
is deleted here, and ``docs/conformance.md`` is regenerated
(``python -m tests.conformance --write``). The reason says what Python does that the analysis
does not model, so the row is also the closing note's "not done".
"""

from __future__ import annotations

from .suite import NEGATIVE, POSITIVE

KNOWN_GAPS: dict[tuple[str, str], str] = {}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
