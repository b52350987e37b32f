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

The same holds for a flag held by the object a method is called on (issue 39): a method
that tests ``self.flag`` or passes ``non_blocking=self.flag`` to a copy is summarised with
``self`` symbolic, reading the class-level join of every assignment to the attribute in
the class's own code (a literal only when all of them give that literal, as pyright joins
an attribute's declarations). A call on an object that holds a literal of its own
(``Uploader(True)``, a dataclass field's default), whose class defines the flag otherwise
(a subclass's class attribute or property) or whose value is not known where the class's
was a literal, uses a copy learnt with that object's value (unknown: no literal).
"""

from __future__ import annotations

from dataclasses import replace

from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.members import Member, member_of, member_truth
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Seq, Summary, Value
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


def new_copy(
    copies: dict[tuple[object, ...], FunctionInfo], key: tuple[object, ...], info: FunctionInfo
) -> tuple[FunctionInfo, bool] | None:
    """The copy of ``info`` kept in ``copies`` under ``key`` (whose second item is the pass),
    and whether it is new, to be learnt now: a blank summary that returns nothing yet. ``None``
    when the pass has learnt :data:`MAX_COPIES` copies in that table already. Every copy of
    a function (literal arguments, names, a classmethod's class, a metaclass's ``__new__``)
    is made here, so each is bounded alike."""
    special = copies.get(key)
    if special is not None:
        return special, False
    if sum(1 for k in copies if k[1] == key[1]) >= MAX_COPIES:
        return None
    special = replace(info, summary=Summary(), returns=None, returns_seen=False)
    special.returns_pass = -1
    copies[key] = special
    return special, True


class Constants:
    """Copies of summaries learnt with the literal arguments of a call."""

    def specialised(self, info: FunctionInfo, binding: sm.Binding) -> FunctionInfo | None:
        """``info`` learnt with the literals this call gives the parameters its body tests,
        or ``None`` when it gives none (or ``info`` is not defined in this module)."""
        where = self._definitions.get(info)
        if where is None:
            return None
        node, scope, cls = where
        args = binding.args
        # Cheap first: most calls give no flag literal (``None`` defaults do not count: a
        # parameter that may be None is tested against None, not for truth).
        given = any(_flag(arg.value) or is_symbolic(arg.value) for arg in args.values())
        texts = any(_text(arg.value) for arg in args.values())
        if not given and not texts and not _may_hold_flags(args.get(0), cls):
            return None  # nor an instance's own
        tested = self._bodies.tested(node)  # one walk per function per run (bodies.py)
        passed_on = self._passed_on.get(info, ())
        # Beyond truth tests (``kind == "external"``, ``match spec.split(":")``,
        # ``self.lanes[kind]``) and beyond bool/int (a string): only for a function whose
        # summary reads streams, so a literal there may change what the rules read.
        wider = (given or texts) and (info in self._maybe_in or reads_streams(info))
        decided = self._bodies.decided(node) if wider else frozenset()
        if not tested and not passed_on and not decided:
            return None
        fixed: dict[int, Value] = {}
        named_params: set[int] = set()
        for index, (name, _) in enumerate(info.params):
            arg = args.get(index)
            if arg is None:
                continue
            named = f"@{name}" in tested  # used as an attribute's name (getattr(obj, name))
            if named and _name(arg.value):
                fixed[index] = arg.value
                named_params.add(index)
            elif name in tested or index in passed_on or named:
                if _flag(arg.value) or (_text(arg.value) and wider):
                    fixed[index] = arg.value
                else:
                    self._note_passed_on(arg.value)
            elif name in decided:
                if _flag(arg.value) or _text(arg.value):
                    fixed[index] = arg.value
                else:
                    self._note_passed_on(arg.value)
        flags = _attribute_flags(args.get(0), info, tested, cls)
        if not fixed and not flags:
            return None
        # Copies for attributes' names are kept apart, with a budget of their own: a module
        # naming many attributes through one helper does not use up the copies its flags
        # (and its classes' ``__new__``) need.
        named = bool(named_params)
        copies = self._named_copies if named else self._specialised
        key = (info, self._passes, tuple(sorted((i, repr(v)) for i, v in fixed.items())), flags)
        made = new_copy(copies, key, info)
        if made is None:
            return None
        special, new = made
        if not new:
            return special
        if flags and cls is not None:  # self.external read in the copy is the literal
            receiver = args[0].value if 0 in args else None
            fixed[0] = _holding(cls, flags, ParamRef(special, 0), receiver)
        self._copy_of[special] = info
        saved = (self.learning, self.reporting, self._loops)
        # A copy for an attribute's name may reach what the summary never saw (the method
        # ``getattr(cb, hook)`` is): what it finds on concrete values is reported, once
        # (findings are kept by place and code), where the caller is.
        self.learning, self.reporting, self._loops = True, named and self.reporting, []
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


def _may_hold_flags(receiver: Arg | None, cls: ClassInfo | None) -> bool:
    """The receiver (``self``) is an object whose attributes may differ from what the
    method's own class gives every instance: it holds attributes of its own, or it is an
    instance of a subclass (which may define a flag differently)."""
    value = receiver.value if receiver is not None else None
    return isinstance(value, Instance) and (bool(value.fields) or value.cls is not cls)


def _attribute_flags(
    receiver: Arg | None, info: FunctionInfo, tested: frozenset[str], cls: ClassInfo | None
) -> tuple[tuple[str, Value], ...]:
    """The flags of the receiver's attributes that the body tests or passes as a copy's
    ``non_blocking=self.flag``, where the method's summary may have read another value:
    its copy is learnt with them (an attribute of an instance per allocation site, as
    :class:`.values.Instance`).

    The summary reads ``self.flag`` as the class-level join of the method's own class
    (``cls``): a literal only when every assignment in the class gives that literal
    (:func:`class_flag`). A copy is learnt when the receiver holds a literal of its own
    (``Uploader(True)``, ``__init__`` setting ``True``, a dataclass field's default), when
    its class defines the flag differently (a subclass's class attribute or property), or
    when the receiver's value is not known where the class's was a literal (read as
    unknown: no copy is then judged on the class's literal)."""
    value = receiver.value if receiver is not None else None
    if not isinstance(value, Instance) or not info.params:
        return ()
    prefix = f"{info.params[0][0]}."
    found: list[tuple[str, Value]] = []
    for name in sorted(t[len(prefix) :] for t in tested if t.startswith(prefix)):
        present, held = _field_path(value, name)
        held = held if _flag(held) else None
        if present and held is not None:
            found.append((name, held))
            continue
        if "." in name:  # self.cfg.flag: the summary read the caller's object, unknown
            if held is not None:
                found.append((name, held))
            continue
        assumed = class_flag(cls, name) if cls is not None else None
        assumed = assumed if _flag(assumed) else None
        if held != assumed:
            found.append((name, held))
    return tuple(found)


def _field_path(value: Instance, path: str) -> tuple[bool, Value]:
    """``value.a.b`` (``path``: "a.b"), through the objects it holds (issue 38: a flag held
    by a configuration object, any depth): whether the last object holds it as its own,
    and the value (its class's, :func:`class_flag`, when it does not)."""
    *holders, last = path.split(".")
    for step in holders:
        present, held = value.field(step)
        if not present:
            held = class_flag(value.cls, step)
        if not isinstance(held, Instance):
            return False, None
        value = held
    present, held = value.field(last)
    return present, held if present else class_flag(value.cls, last)


def _holding(
    cls: ClassInfo, flags: tuple[tuple[str, Value], ...], ref: ParamRef, receiver: Value
) -> Instance:
    """``self`` of a copy learnt with ``flags``: the literal at each path (``"cfg.flag"``:
    an object of the class the caller's ``self.cfg`` is, holding the literal), every other
    attribute the caller's object's, symbolic as in the summary."""
    own = tuple((name, held) for name, held in flags if "." not in name)
    nested: dict[str, list[tuple[str, Value]]] = {}
    for name, held in flags:
        if "." in name:
            head, rest = name.split(".", 1)
            nested.setdefault(head, []).append((rest, held))
    fields = list(own)
    for head, inner in nested.items():
        present, holder = receiver.field(head) if isinstance(receiver, Instance) else (False, None)
        if not present and isinstance(receiver, Instance):
            holder = class_flag(receiver.cls, head)
        if isinstance(holder, Instance):
            fields.append((head, _holding(holder.cls, tuple(inner), ref.child(head), holder)))
    return Instance(cls, tuple(fields), ref)


def class_flag(cls: ClassInfo, name: str) -> Value:
    """What ``self.name`` reads on an instance of ``cls`` of which nothing else is known: the
    first definition in the MRO, a class attribute or the attributes its methods set
    (joined over every assignment: a literal only when all of them give it), or the
    literal a property returns."""
    for klass in cls.mro():
        method = klass.methods.get(name)
        if method is not None:
            method = cls.views.get(method, method)
            return method.returns if method.is_property else None
        if name in klass.attrs:
            return cls.attr(name)  # less what an ``__init__`` that never runs sets
    return None


def _text(value: Value) -> bool:
    """A string literal whose text the interpreter keeps (``""`` stands for any string)."""
    return isinstance(value, Const) and type(value.value) is str and value.value != ""


def reads_streams(info: FunctionInfo) -> bool:
    """The summary learnt with unknown arguments holds a stream the function makes or
    reads (not its parameters' own): it returns one, reports one at its callers, or sets
    one on an object. A literal that decides a branch of such a function may decide what
    the rules read; of any other, it decides nothing they read."""
    summary = info.summary
    if summary.sinks:
        return True
    if any(_holds_stream(v, 3) for v in summary.sets_attrs.values()):
        return True
    return _holds_stream(info.returns, 3)


def _holds_stream(value: Value, depth: int) -> bool:
    if isinstance(value, ExtStream):
        return value.param is None
    if depth <= 0:
        return False
    if isinstance(value, Seq):
        parts = (*value.items, *(v for _, v in value.keys))
        return any(_holds_stream(v, depth - 1) for v in parts)
    if isinstance(value, Instance):
        return any(_holds_stream(v, depth - 1) for _, v in value.fields)
    return False


def _flag(value: Value) -> bool:
    """A literal that a copy of a summary is learnt for: ``True``, ``False``, an integer, an
    enum member, or the ``**kwargs`` a call gives with such literals
    (``send(t, non_blocking=True)``)."""
    if isinstance(value, Seq):
        return bool(value.keys) and any(_flag(item) for _, item in value.keys)
    return isinstance(value, Const) and type(value.value) in (bool, int, Member)


def _name(value: Value) -> bool:
    """A string literal that may name an attribute: a copy of a summary is learnt for it
    where the body uses the parameter as one (``getattr(obj, name)``, bodies.py's ``"@p"``),
    so that the copy reads that attribute (issue 38: per-literal copies)."""
    return isinstance(value, Const) and type(value.value) is str and value.value.isidentifier()
