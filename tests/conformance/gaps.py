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
    ("closures/closure_late_binding", NEGATIVE): (
        "a closure reads the enclosing name's value at definition, not when it is called "
        "(late binding)"
    ),
    ("closures/nonlocal_rebinding", POSITIVE): (
        "an assignment through `nonlocal` in a called nested function does not change the "
        "enclosing name"
    ),
    ("closures/nonlocal_rebinding", NEGATIVE): (
        "an assignment through `nonlocal` in a called nested function does not change the "
        "enclosing name"
    ),
    ("classes/base_in_module_override", POSITIVE): (
        "a base class of another module has no view for the subclass: its `__init__` calling "
        "`self._make()` runs the base's maker, not the subclass's override"
    ),
    ("with_stmt/nullcontext_value", POSITIVE): (
        "`with contextlib.nullcontext(v) as s` does not bind `s` to `v`"
    ),
    ("generators/yield_from", POSITIVE): (
        "`yield from` does not yield the delegate generator's values"
    ),
    ("generators/itertools_chain", POSITIVE): (
        "`itertools.chain(a, b)` does not yield the elements of its arguments"
    ),
    ("comprehensions/comp_filter", NEGATIVE): (
        "a comprehension's `if` clause does not narrow its target (the contract's predicate "
        "is applied in `if` statements only)"
    ),
    ("comprehensions/comp_walrus", POSITIVE): (
        "an assignment expression in a comprehension does not bind in the enclosing scope"
    ),
    ("constants/and_short_circuit", NEGATIVE): (
        "`False and x` evaluates `x` (short-circuit on literal operands is not followed)"
    ),
    ("imports/importlib_literal", POSITIVE): (
        '`importlib.import_module("name")` with a literal name is not followed as an import'
    ),
    ("imports/try_import", POSITIVE): (
        "an import nested in a top-level compound statement (`try:`, even `if True:`) is not "
        "followed into the imported module"
    ),
    ("match/as_pattern", POSITIVE): (
        "`case ExternalStream() as s:` does not narrow an unknown subject to an external stream"
    ),
    ("match/guard_literal", NEGATIVE): (
        "a guard that is a literal `False` does not make the case unreachable"
    ),
    ("match/mapping_pattern", POSITIVE): (
        "a mapping pattern does not bind the value of its literal key"
    ),
    ("match/mapping_rest", POSITIVE): (
        "`**rest` in a mapping pattern does not bind the remaining items"
    ),
    ("match/or_pattern", POSITIVE): ("names bound by an or-pattern's alternatives get nothing"),
    ("match/value_pattern_constant", NEGATIVE): (
        "a value pattern on a module-level constant does not decide which case runs"
    ),
}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
