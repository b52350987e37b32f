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
    ("library_flow/singledispatchmethod", POSITIVE): (
        "`functools.singledispatchmethod` is not a row of the flow-model table: the method's "
        "registrations are not followed, the base implementation is what the call runs"
    ),
    ("classes/base_in_module_stream_method", POSITIVE): (
        "`self._stream().synchronize()` in a base method of another module: the receivers' "
        "summaries keep a call on self only where its result is stored or returned, not "
        "where a refused operation is made on it"
    ),
    ("data_model/descriptor_set_name_dict", POSITIVE): (
        "a descriptor's `__set__` storing into `obj.__dict__[self.name]` when `__init__` "
        "assigns through `self`: an assignment through a symbolic `self` records the "
        "attribute itself, not what the descriptor's `__set__` stores"
    ),
    ("data_model/descriptor_set_in_method", POSITIVE): (
        "a data descriptor assigned through `self` in one method (`self.stream = s`) and "
        "read in another: the setter's `setattr(obj, self.attr, value)` is not what the "
        "summary records, so the getter's read finds nothing of the caller's"
    ),
    ("data_model/property_setter_in_method", POSITIVE): (
        "a property setter run by `self.stream = s` in a method other than `__init__`: the "
        "summary records the attribute `stream`, not the setter's `self._current`"
    ),
}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
