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
    ("data_model/metaclass_registry", POSITIVE): (
        "a metaclass's `__init__` storing the class into a module-level dict "
        "(`REGISTRY[name] = cls`) runs in a function body: what a function stores into a "
        "module global's contents is not a summary effect, so the registry stays empty"
    ),
    ("data_model/metaclass_new_registry", POSITIVE): (
        "a metaclass's `__new__` storing the class into a module-level dict under "
        "`namespace.get(\"key\")`: a function's store into a module global's contents is not "
        "followed, nor is the class namespace passed to the metaclass"
    ),
    ("data_model/init_subclass_registry", POSITIVE): (
        "`__init_subclass__` runs with the class keywords, but its store into a dict of the "
        "base (`Plugin.registry[key] = cls`) is a store into a container held by a class "
        "attribute, which a summary does not carry back"
    ),
    ("data_model/init_subclass_name", POSITIVE): (
        "`__init_subclass__` storing `cls.__name__` as a key of a module-level dict: a "
        "function's store into a module global's contents is not followed, and a class's "
        "`__name__` is not a literal"
    ),
    ("data_model/asynccontextmanager_nested", POSITIVE): (
        "`async with cm as s` where `cm` is a parameter: what entering the caller's context "
        "manager gives is not kept as a symbolic value (`s` stands for `cm` itself)"
    ),
    ("hazard_flow/call_object_copy", POSITIVE): (
        "`non_blocking=self.non_blocking`, a literal flag stored on the instance by `__init__`: "
        "a copy's flag is read only as a literal at the call or a helper's own parameter, "
        "not through an attribute of `self`"
    ),
}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
