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
    ("assignment/subscript_target", POSITIVE): (
        'a value stored by subscript assignment (`d["s"] = ext`) is not kept by the '
        "container, even in a dict display with other keys"
    ),
    ("assignment/unpack_generator", POSITIVE): (
        "unpacking a generator expression: positions after the first get nothing (one "
        "unpacking routine for iterables of unknown length is issue 27 item 3)"
    ),
    ("assignment/unpack_tuple_genexpr", POSITIVE): (
        "`tuple(genexpr)` unpacked: positions after the first get nothing"
    ),
    ("calls/args_to_bound_method", POSITIVE): (
        "`*args` passed on to a bound method (`obj.m(*args)`) does not bind the method's parameters"
    ),
    ("calls/double_star_literal", POSITIVE): (
        "`**{...}` with literal keys is not bound to the callee's parameters"
    ),
    ("calls/kwargs_dict_variable", POSITIVE): (
        "a dict with literal keys unpacked by `**` is not bound to the callee's parameters"
    ),
    ("calls/partial_constructor", POSITIVE): (
        "`functools.partial(ExternalStream, h)()` is not known to construct an external stream"
    ),
    ("calls/star_args_forward", POSITIVE): (
        "a summary does not carry a parameter that reaches `sync(*args)` back to the caller's"
        " positional argument"
    ),
    ("calls/star_kwargs_forward", POSITIVE): (
        "a summary does not carry a keyword that reaches `sync(**kwargs)` back to the caller"
    ),
    ("calls/star_list_literal", POSITIVE): (
        "`f(*[ext])`: elements of a starred list display are not bound to parameters"
    ),
    ("functions/callback_effect", POSITIVE): (
        "a function-valued argument called by the helper is not specialised at the call (the "
        "callback's current-stream effect is lost)"
    ),
    ("functions/callback_parameter", POSITIVE): (
        "a helper calling its function-valued parameter (`apply(fn, s)`) is not specialised "
        "at the call that passes `fn`"
    ),
    ("functions/decorator_application_call", POSITIVE): (
        "a wrapper returned by a decorator called by hand (`wrapped = logged(sync)`) does not"
        " run the wrapped function's summary"
    ),
    ("functions/decorator_runs_on", POSITIVE): (
        "a decorator factory whose wrapper makes its argument current (`@runs_on(ext)`) does "
        "not make it current for the decorated body"
    ),
    ("functions/reduce_builtin", POSITIVE): (
        "`functools.reduce` does not call its function on the sequence's elements"
    ),
    ("functions/sorted_key", POSITIVE): ("`sorted(..., key=f)` does not call `f` on the elements"),
    ("functions/class_decorator_sets_attribute", POSITIVE): (
        "an attribute a class decorator sets on the class (`cls.stream = ext`) is not seen by "
        "the class's methods"
    ),
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
    ("classes/call_dunder", POSITIVE): (
        "calling an instance does not dispatch to its class's `__call__`"
    ),
    ("classes/getattr_delegation", POSITIVE): (
        "an attribute missing from the class is not resolved through `__getattr__`"
    ),
    ("classes/holder_of_self", POSITIVE): (
        "an object built as `Helper(self)` that stores its parameter loses the owner's attributes"
    ),
    ("classes/inherited_init_override", POSITIVE): (
        "`self._make()` in an inherited `__init__` runs the base class's method, not the "
        "subclass's override (no instance per allocation site, no MRO dispatch on `self`)"
    ),
    ("classes/inherited_init_reverse", NEGATIVE): (
        "`self._make()` in an inherited `__init__` runs the base class's method even when the"
        " subclass overrides it"
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
    ("dataclasses/copy_copy", POSITIVE): (
        "`copy.copy` of an instance does not keep its attributes"
    ),
    ("dataclasses/dataclass_transform", POSITIVE): (
        "a class whose base is marked `typing.dataclass_transform` gets no synthesised `__init__`"
    ),
    ("dataclasses/namedtuple_collections", POSITIVE): (
        "`collections.namedtuple(...)` fields are not bound by its constructor"
    ),
    ("dataclasses/namedtuple_replace", POSITIVE): (
        "`_replace` of a named tuple does not keep the fields it does not replace"
    ),
    ("dataclasses/post_init", POSITIVE): (
        "attributes set in `__post_init__` (`field(init=False)`) are not seen on the instance"
    ),
    ("dataclasses/replace", POSITIVE): (
        "`dataclasses.replace` does not keep the fields it does not replace"
    ),
    ("with_stmt/nullcontext_or_stream", NEGATIVE): (
        "a literal flag passed to the helper does not choose between `torch.npu.stream(s)` "
        "and `nullcontext()` (constants are not followed into callees)"
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
    ("async/contextvar", POSITIVE): ("`ContextVar.set` / `.get` do not hold a value"),
    ("async/contextvar_to_thread", POSITIVE): (
        "`ContextVar.set` / `.get` do not hold a value (nor does `asyncio.to_thread` copy the "
        "context into the worker)"
    ),
    ("async/run_in_executor", POSITIVE): (
        "`loop.run_in_executor(None, f, *args)` does not call `f(*args)`"
    ),
    ("async/to_thread", POSITIVE): ("`asyncio.to_thread(f, *args)` does not call `f(*args)`"),
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
    ("constants/and_short_circuit", NEGATIVE): (
        "`False and x` evaluates `x` (short-circuit on literal operands is not followed)"
    ),
    ("constants/conditional_expression", NEGATIVE): (
        "`a if False else b` joins both branches (literal conditions of conditional "
        "expressions are not followed)"
    ),
    ("constants/default_flag", NEGATIVE): (
        "a default parameter `sync=False` is not followed into the helper's `if sync:`"
    ),
    ("constants/literal_argument", NEGATIVE): (
        "a literal `False` argument is not followed into the helper's `if sync:`"
    ),
    ("constants/module_flag", NEGATIVE): (
        "a module-level constant `DEBUG = False` is not followed into `if DEBUG:`"
    ),
    ("constants/while_false", NEGATIVE): ("the body of `while False:` is analysed as reachable"),
    ("imports/decorator_from_module", POSITIVE): (
        "a decorator factory imported from another module does not make its argument current "
        "for the decorated body"
    ),
    ("imports/importlib_literal", POSITIVE): (
        '`importlib.import_module("name")` with a literal name is not followed as an import'
    ),
    ("imports/transfer_imported_module", POSITIVE): (
        "`transfer_to_npu` imported by a module the file imports does not remap `torch.cuda` "
        "for the file (contract §3; import effects are process-wide)"
    ),
    ("imports/transfer_package_init", POSITIVE): (
        "`transfer_to_npu` imported by a package `__init__` does not remap `torch.cuda` for "
        "the importer"
    ),
    ("imports/transfer_transitive", POSITIVE): (
        "`transfer_to_npu` two imports away does not remap `torch.cuda` for the file"
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
    ("match/star_pattern", POSITIVE): ("positions after a starred sub-pattern get nothing"),
}

__all__ = ["KNOWN_GAPS", "NEGATIVE", "POSITIVE"]
