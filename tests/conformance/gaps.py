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

KNOWN_GAPS: dict[tuple[str, str], str] = {
    ("library_flow/singledispatch_modules", POSITIVE): (
        "`@finish.register` in another module than the generic function: a registration is "
        "kept in the registering module's run only, so the importer's call runs the base"
    ),
    ("library_flow/singledispatch_register_modules", POSITIVE): (
        "`finish.register(T, impl)` called in another module: as above, a registration is "
        "not an effect the importing module sees"
    ),
    ("hazard_flow/call_object_copy", POSITIVE): (
        "`non_blocking=self.non_blocking`, a literal flag stored on the instance by `__init__`: "
        "a copy's flag is read only as a literal at the call or a helper's own parameter, "
        "not through an attribute of `self`"
    ),
}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
