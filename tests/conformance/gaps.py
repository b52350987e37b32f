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
    ("imports/transfer_parent_package", POSITIVE): (
        "`from pkg.mod import f` does not apply the import effects of `pkg/__init__.py`, "
        "which Python runs first (`import pkg.mod` does)"
    ),
    ("imports/transfer_own_package", POSITIVE): (
        "a package `__init__` importing `transfer_to_npu` does not remap `torch.cuda` in the "
        "package's own modules (the import graph does not link a module to its packages)"
    ),
    ("imports/try_import_fallback", POSITIVE): (
        "a name bound to a different function on each path (`try: from a import f` / "
        "`except ImportError: from b import f`) is neither: two functions do not join"
    ),
    ("assignment/subscript_target", POSITIVE): (
        'a value stored by subscript assignment (`d["s"] = ext`) is not kept by the '
        "container, even in a dict display with other keys"
    ),
    ("calls/args_to_bound_method", POSITIVE): (
        "`*args` passed on to a bound method (`obj.m(*args)`) does not bind the method's parameters"
    ),
    ("functions/class_decorator_sets_attribute", POSITIVE): (
        "an attribute a class decorator sets on the class (`cls.stream = ext`) is not seen by "
        "the class's methods"
    ),
    ("classes/call_dunder", POSITIVE): (
        "calling an instance does not dispatch to its class's `__call__`"
    ),
    ("classes/holder_of_self", POSITIVE): (
        "an object built as `Helper(self)` that stores its parameter loses the owner's attributes"
    ),
    ("classes/setattr_literal", POSITIVE): (
        '`setattr(obj, "name", v)` with a literal name does not set the attribute'
    ),
    ("classes/subclass_of_stream", POSITIVE): (
        "an instance of a user subclass of `ExternalStream` is not known to be external"
    ),
    ("classes/super_init", POSITIVE): (
        "attributes set by `super().__init__(...)` with the subclass's arguments are not seen"
        " by the subclass's methods"
    ),
    ("dataclasses/namedtuple_collections", POSITIVE): (
        "`collections.namedtuple(...)` fields are not bound by its constructor"
    ),
    ("exceptions/exception_attribute", POSITIVE): (
        "an exception instance bound by `except E as e` is not the raised instance (its "
        "attributes are lost)"
    ),
    ("containers/deque", POSITIVE): (
        "`collections.deque(iterable)` and `popleft()` do not carry the elements"
    ),
    ("containers/dict_setdefault", POSITIVE): (
        "`dict.setdefault(key, default)` does not return the default it stores"
    ),
    ("containers/dict_get", NEGATIVE): (
        "`dict.get` with a literal key gives every value of the dict"
    ),
    ("containers/list_append", POSITIVE): (
        "`list.append` does not add to the list's elements (indexing and iterating miss the "
        "appended stream)"
    ),
}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
