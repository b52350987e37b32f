"""Literal constants followed into branches and into the functions they are passed to
(issue 27, point 6).

A test whose value is a known literal decides its branch: ``if flag:`` with ``flag`` a
``True``/``False``/``None``/integer literal runs one branch only, as do ``x if flag else y``
and ``while flag:`` (``not`` of a literal is a literal). Strings and floats are never
decided: the interpreter keeps every string as ``""`` and every float as one value.

A function whose body tests a parameter that way (``if enable:``, ``... if enable else
contextlib.nullcontext()``) is summarised once with that parameter unknown, so both
branches count. A call that passes a literal there, or leaves a literal default, uses a copy
of the summary learnt with that literal instead (bounded call-site sensitivity: one copy per
function and tuple of literals, :data:`MAX_COPIES` per pass), so ``maybe_on(ext, False)``
makes nothing current.
A ``None`` argument is not one of those literals (a parameter that may be ``None`` is
tested against ``None``, and asking every function with a ``None`` default costs a walk of
its body). Only functions of the module being analysed are copied: an imported
function's body is not here (its summary keeps both branches).
"""

from __future__ import annotations

from dataclasses import replace

from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.members import Member, member_of, member_truth
from ..abstract.values import FunctionInfo, Instance, Seq, Summary, Value
from ..semantics.sites import Arg
from . import summaries as sm
from .core import is_symbolic

#: Copies learnt per pass at most (each is one more run of a body).
MAX_COPIES = 64


def const_truth(value: Value) -> bool | None:
    """Whether a literal is true, when the value is one the analysis knows exactly."""
    if isinstance(value, Const) and (value.value is None or type(value.value) in (bool, int)):
        return bool(value.value)
    member = member_of(value)
    return member_truth(member) if member is not None else None


class Constants:
    """Copies of summaries learnt with the literal arguments of a call."""

    def specialised(self, info: FunctionInfo, binding: sm.Binding) -> FunctionInfo | None:
        """``info`` learnt with the literals this call gives the parameters its body tests,
        or ``None`` when it gives none (or ``info`` is not defined in this module)."""
        where = self._definitions.get(info)
        if where is None:
            return None
        args = binding.args
        # Cheap first: most calls give no flag literal (``None`` defaults do not count: a
        # parameter that may be None is tested against None, not for truth).
        given = any(_flag(arg.value) or is_symbolic(arg.value) for arg in args.values())
        if not given and not _has_flags(args.get(0)):  # nor an instance holding a flag
            return None
        node, scope, cls = where
        tested = self._bodies.tested(node)  # one walk per function per run (bodies.py)
        passed_on = self._passed_on.get(info, ())
        if not tested and not passed_on:
            return None
        fixed: dict[int, Value] = {}
        for index, (name, _) in enumerate(info.params):
            arg = args.get(index)
            if arg is None or (name not in tested and index not in passed_on):
                continue
            if _flag(arg.value):
                fixed[index] = arg.value
            else:
                self._note_passed_on(arg.value)
        flags = _attribute_flags(args.get(0), info, tested)
        if not fixed and not flags:
            return None
        key = (info, self._passes, tuple(sorted((i, repr(v)) for i, v in fixed.items())), flags)
        special = self._specialised.get(key)
        if special is not None:
            return special
        if sum(1 for k in self._specialised if k[1] == self._passes) >= MAX_COPIES:
            return None
        special = replace(info, summary=Summary(), returns=None, returns_seen=False)
        special.returns_pass = -1
        if flags and cls is not None:  # self.external read in the copy is the literal
            fixed[0] = Instance(cls, flags, ParamRef(special, 0))
        self._specialised[key] = special
        saved = (self.learning, self.reporting, self._loops)
        self.learning, self.reporting, self._loops = True, False, []
        try:
            self._run_function(node, scope, cls, special, fixed)
        finally:
            self.learning, self.reporting, self._loops = saved
        if info.returns_known:
            special.returns, special.returns_seen = info.returns, True
        return special

    def _note_passed_on(self, value: Value) -> None:
        """A parameter of the function being learnt, passed on where a literal would be
        followed (``with maybe_on(s, enable):``): its literals are followed too."""
        ref = value.param if isinstance(value, ExtStream) else None
        owner = self._function
        if ref is None or ref.path or ref.owner is not owner or ref.index < 0:
            return
        if owner in self._definitions:
            self._passed_on.setdefault(owner, set()).add(ref.index)


def _has_flags(receiver: Arg | None) -> bool:
    """An instance (``self``) holding a literal flag in one of its own attributes."""
    value = receiver.value if receiver is not None else None
    return isinstance(value, Instance) and any(_flag(v) for _, v in value.fields)


def _attribute_flags(
    receiver: Arg | None, info: FunctionInfo, tested: frozenset[str]
) -> tuple[tuple[str, Value], ...]:
    """The literal flags of the receiver's own attributes that the body tests
    (``Factory(True)`` and ``if self.external:`` in its method): its copy is learnt with
    them (an attribute of an instance per allocation site, as :class:`.values.Instance`)."""
    if not _has_flags(receiver) or not info.params:
        return ()
    this = info.params[0][0]
    fields = receiver.value.fields  # type: ignore[union-attr]
    return tuple((name, v) for name, v in fields if _flag(v) and f"{this}.{name}" in tested)


def _flag(value: Value) -> bool:
    """A literal that a copy of a summary is learnt for: ``True``, ``False``, an integer, an
    enum member, or the ``**kwargs`` a call gives with such literals
    (``send(t, non_blocking=True)``)."""
    if isinstance(value, Seq):
        return bool(value.keys) and any(_flag(item) for _, item in value.keys)
    return isinstance(value, Const) and type(value.value) in (bool, int, Member)
