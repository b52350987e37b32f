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
A ``None`` or a stream given where the body tests ``p is None`` or ``p or ...`` decides
as a literal does (:mod:`.nones`). Only functions of the module being analysed are copied:
an imported function's body is not here (its summary keeps both branches).

The same holds for a flag held by the object a method is called on (issue 39): a method
that tests ``self.flag`` or passes ``non_blocking=self.flag`` to a copy is summarised with
``self`` symbolic, reading the class-level join of every assignment to the attribute in
the class's own code (a literal only when all of them give that literal, as pyright joins
an attribute's declarations). A call on an object that holds a literal of its own
(``Uploader(True)``, a dataclass field's default), whose class defines the flag otherwise
(a subclass's class attribute or property) or whose value is not known where the class's
was a literal, uses a copy learnt with that object's value (unknown: no literal).

A config object is a literal too, field by field (issue 38, family 1): a function that tests
or compares an attribute of a parameter (``if opts.borrowed:``, ``cfg.kind is
Kind.EXTERNAL``, ``spec.mode.value == "lent"``), or passes a parameter or its attribute on
to one that does (``OverlapStreams(cfg.placement)`` whose factory tests ``p.comm``: the
paths of :attr:`_passed_attrs`, at most :data:`MAX_ATTR_PATH` steps), is copied for the
literals the caller's object holds there (a dataclass's keyword or default, a
``NamedTuple``'s field, what a plain ``__init__`` stored); everything else the copy reads of
that object stays the caller's. A constructor's ``__init__`` is copied alike, so
``Lane(True, h)`` and ``Job(cfg)`` hold what the literal picks.

What an object's own allocation gave it decides too (issue 38, item 2): a method reading
``self.s`` where the class-level join is a stream only some instances get (a "may be"),
called on an object whose allocation is visible, is copied with that object's own value
(external on every path, or none; an object held there, ``self.lanes.side``, by the
attributes that differ), so the operation is reported at the call on the external object,
at the outermost such call when the copy passes it on (:mod:`.decisions`), and not inside the
method; with no such call visible the method keeps the class-level join. A copy adds nothing
to the class-level join itself (:meth:`.objects.Objects.learn_attr`).
"""

from __future__ import annotations

from dataclasses import replace

from ..abstract.atoms import PRESENT_HOW, Const, ExtStream, GlobalSlot, ParamRef, present
from ..abstract.handles import ManagedStream
from ..abstract.holding import reads_streams
from ..abstract.members import Member, member_of, member_truth
from ..abstract.paths import symbolic
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Seq, Summary, Value
from ..semantics.sites import Arg
from . import summaries as sm
from .core import is_symbolic
from .nones import PRESENT, none_decided, noneness

#: Copies learnt per pass at most (each is one more run of a body).
MAX_COPIES = 64
#: Literal keys of one dict a function's result is learnt for, for other modules' calls.
MAX_KEYS = 8


def by_literal(info: FunctionInfo, binding: sm.Binding) -> Value:
    """What ``info`` returns at a call, given the literal keys its arguments are
    (:meth:`Constants.literal_returns`): a call in another module, where no copy is made."""
    for (index, key), value in info.summary.by_literal.items():
        arg = binding.args.get(index)
        known = arg.value if arg is not None else None
        if isinstance(known, Const) and type(known.value) is type(key) and known.value == key:
            return value
    return info.returns


def _global_read(value: Value) -> bool:
    """A read of a module global kept for the caller's view of it (:class:`GlobalSlot`)."""
    return (
        isinstance(value, ExtStream)
        and value.param is not None
        and type(value.param.owner) is GlobalSlot
    )


def const_truth(value: Value) -> bool | None:
    """Whether a literal is true, when the value is one the analysis knows exactly."""
    if isinstance(value, Const) and (value.value is None or type(value.value) in (bool, int)):
        return bool(value.value)
    if present(value):
        return True  # a copy's parameter the caller gave a stream (:func:`noneness`)
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
        if where is None:  # another module's: a copy it exported, if any (variants.py)
            return self.exported_variant(info, binding.args) if info.variants else None
        node, scope, cls = where
        args = binding.args
        # Cheap first: most calls give no flag literal (a ``None`` or a stream: nones.py).
        given = any(_flag(arg.value) or is_symbolic(arg.value) for arg in args.values())
        texts = any(_text(arg.value) for arg in args.values())
        objects = any(_config(arg.value) for arg in args.values())
        known = given or texts or objects or any(noneness(a.value) for a in args.values())
        if not known and not _may_hold_flags(args.get(0), cls):
            return None  # nor an instance's own, nor an object's fields, nor None-ness
        tested = self._bodies.tested(node)  # one walk per function per run (bodies.py)
        passed_on = self._passed_on.get(info, ())
        passed_attrs = self._passed_attrs.get(info, ())
        pinned = _own_streams(args.get(0), cls)
        if pinned:  # not what the method sets itself (``self.a, self.b = self.b, ext``)
            writes = self._bodies.self_uses(node).writes
            pinned = tuple(item for item in pinned if item[0] not in writes)
        # Beyond truth tests (``kind == "external"``, ``match spec.split(":")``,
        # ``self.lanes[kind]``) and beyond bool/int (a string): only for a function whose
        # summary reads streams, so a literal there may change what the rules read.
        wider = (given or texts) and (info in self._maybe_in or reads_streams(info))
        decided = self._bodies.decided(node) if wider else frozenset()
        if not tested and not passed_on and not decided and not passed_attrs and not pinned:
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
                elif (decides := none_decided(self._maybe_in, info, arg.value)) is not None:
                    fixed[index] = decides  # ``stream is None``, ``not stream``: None-ness
                elif self.hazard_spread and info in self.hazard_spread:  # gradmode.py
                    self.note_hazard_spread(arg.value)
                else:
                    self._note_passed_on(arg.value)
            elif name in decided:
                if _flag(arg.value) or _text(arg.value):
                    fixed[index] = arg.value
                elif nd := none_decided(self._maybe_in, info, arg.value):  # ``match p: case None``
                    fixed[index] = nd
                else:
                    self._note_passed_on(arg.value)
            elif f"?{name}" in tested and (nd := none_decided(self._maybe_in, info, arg.value)):
                fixed[index] = nd  # ``stream or ...``, ``match stream:``: None-ness only
        flags = _attribute_flags(args.get(0), info, tested, cls)
        held = self._held_flags(info, args, tested, passed_attrs, cls)
        if not fixed and not flags and not held and not pinned:
            return None
        # Copies for attributes' names are kept apart, with a budget of their own: a module
        # naming many attributes through one helper does not use up the copies its flags
        # (and its classes' ``__new__``) need.
        named = bool(named_params)
        copies = self._named_copies if named else self._specialised
        key = (
            info,
            self._passes,
            tuple(sorted((i, repr(v)) for i, v in fixed.items())),
            flags,
            tuple(sorted((i, repr(pairs)) for i, pairs in held.items())),
            tuple((name, _shape(value)) for name, value in pinned),
        )
        made = new_copy(copies, key, info)
        if made is None:
            return None
        special, new = made
        if not new:
            return special
        for index, value in fixed.items():  # the caller's stream: the copy's, not None
            if value is PRESENT:
                fixed[index] = replace(sm.symbolic(ParamRef(special, index)), how=PRESENT_HOW)
        if (flags or pinned) and cls is not None:  # self.external: the literal; self.s: its own
            ref = ParamRef(special, 0)
            receiver = args[0].value if 0 in args else None
            held_self = _holding(cls, flags, ref, receiver)  # self.cfg.flag: at its depth
            own = tuple((name, _anchored(value, ref.child(name))) for name, value in pinned)
            fixed[0] = Instance(cls, (*held_self.fields, *own), ref)
            self._covered.setdefault(info, set()).update(_origins(cls, pinned))
        for index, pairs in held.items():  # cfg.placement.comm read in the copy: the literal
            base = fixed.get(index)
            fixed[index] = _rebuilt(
                args[index].value,
                pairs,
                ParamRef(special, index),
                base if isinstance(base, Instance) else None,
            )
        self._copy_of[special] = info
        # A copy for an attribute's name may reach what the summary never saw (the method
        # ``getattr(cb, hook)`` is): what it finds on concrete values is reported, once
        # (findings are kept by place and code), where the caller is.
        self.learn_copy(node, scope, cls, special, fixed, named and self.reporting)  # type: ignore[attr-defined]
        if info.returns_known:
            special.returns, special.returns_seen = info.returns, True
        return special

    def note_keyed(self, key: Value, container: Value) -> None:
        """``d[p]`` / ``d.get(p)`` of a dict with literal keys, ``p`` a parameter of the
        function being learnt: what it returns may rest on the caller's literal."""
        info = self._function
        ref = key.param if isinstance(key, ExtStream) and not key.also else None
        if ref is None or ref.path or ref.owner is not info or ref.index < 0 or not self.learning:
            return
        if info in self._copy_of or not isinstance(container, Seq) or not container.keys:
            return
        keys = tuple(k for k, _ in container.keys if type(k) in (str, int))[:MAX_KEYS]
        self.__dict__.setdefault("_keyed_reads", {}).setdefault(info, {})[ref.index] = keys

    def literal_returns(self) -> None:
        """For the calls of other modules, where its body is not: what each function whose
        body reads a dict by a parameter returns for each literal key of that dict, learnt
        once here as a call's copy is (:attr:`.values.Summary.by_literal`). A result that is
        one stream the function makes itself (external or managed), nothing, or the entry
        of a global its module's calls fill is kept (a path of its own ``self`` is not the
        caller's); otherwise the caller reads the join of every key's."""
        for info, params in self.__dict__.get("_keyed_reads", {}).items():
            for index, keys in params.items():
                for key in keys:
                    binding = sm.Binding(info, {index: Arg(Const(key), None)}, None)
                    special = self.specialised(info, binding)
                    made = special.returns if special is not None else None
                    if special is not None and (
                        made is None
                        or isinstance(made, ManagedStream)
                        or (isinstance(made, ExtStream) and made.param is None)
                    ):  # one stream it makes, or nothing (a managed lane)
                        info.summary.by_literal[index, key] = made
                    elif special is not None and _global_read(made):
                        # the entry of a global its module's calls fill (``LANES[key]``):
                        # read in each caller's view of that global, not the join of all
                        info.summary.by_literal[index, key] = made

    def _note_passed_on(self, value: Value, attrs: tuple[tuple[str, ...], ...] = ((),)) -> None:
        """A parameter of the function being learnt, passed on where a literal would be
        followed (``with maybe_on(s, enable):``): its literals are followed too. An
        attribute of one (``make(cfg.kind)``), or a parameter whose attributes ``attrs`` the
        callee tests (``comm_stream(p)`` testing ``p.comm``): the literals the caller's
        object holds there are followed (:attr:`_passed_attrs`)."""
        ref = value.param if isinstance(value, (ExtStream, Instance)) else None
        owner = self._function
        if ref is None or ref.owner is not owner or ref.index < 0:
            return
        if owner not in self._definitions:
            return
        for attr in attrs:
            path = (*ref.path, *attr)
            if not path:
                self._passed_on.setdefault(owner, set()).add(ref.index)
            elif len(path) <= MAX_ATTR_PATH and all(step.isidentifier() for step in path):
                self._passed_attrs.setdefault(owner, set()).add((ref.index, path))

    def _held_flags(
        self,
        info: FunctionInfo,
        args: dict[int, Arg],
        tested: frozenset[str],
        passed_attrs: set[tuple[int, tuple[str, ...]]] | tuple[()],
        cls: ClassInfo | None,
    ) -> dict[int, tuple[tuple[tuple[str, ...], Value], ...]]:
        """Per parameter, the literals the caller's object holds at the attribute paths the
        body tests (``cfg.kind is Kind.EXTERNAL``, ``if opts.external:``) or passes on to
        a function that does (``comm_stream(cfg.placement)``): a config object built at the
        caller (a dataclass with an enum field, a ``NamedTuple``, keyword arguments) decides
        the copy as a literal argument would. A symbolic argument of the function being
        learnt passes the paths on to it instead. (The receiver's one-step flags are
        :func:`_attribute_flags`'; a string counts where the summary reads streams.)"""
        found: dict[int, tuple[tuple[tuple[str, ...], Value], ...]] = {}
        texts_read: bool | None = None
        for index, (name, _) in enumerate(info.params):
            arg = args.get(index)
            if arg is None:
                continue
            paths = {path for i, path in passed_attrs if i == index}
            if index or cls is None:
                prefix = f"{name}."
                paths.update(
                    tuple(t[len(prefix) :].split("."))  # ``p.a.b``: a nested holder's field
                    for t in tested
                    if t.startswith(prefix) and t.count(".") <= MAX_ATTR_PATH
                )
            if not paths:
                continue
            value = arg.value
            if isinstance(value, (ExtStream, Instance)) and value.param is not None:
                self._note_passed_on(value, tuple(sorted(paths)))  # the caller's object's
            if not _config(value):
                continue
            pairs = []
            for path in sorted(paths):
                if not index and cls is not None and not value.field(path[0])[0]:  # type: ignore[union-attr]
                    continue  # the receiver's class join, as the summary read it
                lit = _held_along(value, path)
                named = _name(lit) and f"@{name}.{'.'.join(path)}" in tested  # getattr(o, p.kind)
                if _text(lit) and texts_read is None and not named:
                    texts_read = info in self._maybe_in or reads_streams(info)
                if _flag(lit) or (texts_read and _text(lit)) or named:
                    pairs.append((path, lit))
            if pairs:
                found[index] = tuple(pairs)
        return found


def _own_streams(receiver: Arg | None, cls: ClassInfo | None) -> tuple[tuple[str, Value], ...]:
    """The receiver's attributes that hold what its own allocation gave it, where the
    class-level join of the attribute (what the summary reads for ``self.s``) is a stream
    only some instances get (``self.s = make(cfg)``, a "may be"): the caller that allocated
    the object is visible, so the copy reads this object's own value (an external stream on
    every path, or none), and the operation is decided at the call (issue 38, item 2: where
    the caller is visible, report at its call, never inside as well). An object held there
    (``self.streams.comm``) keeps only the attributes that differ so."""
    value = receiver.value if receiver is not None else None
    if cls is None or not isinstance(value, Instance) or not value.fields or value.declared:
        return ()
    found = []  # (a copy's own receiver holds what it was pinned with: passed on to self.m())
    for name, held in value.fields:
        joined = cls.attr(name)
        if _may_stream(joined, 2):
            at = value.param.child(name) if value.param is not None else None
            pinned = _pinned(held, joined, 2, at)
            if pinned is not _UNPINNED:
                found.append((name, pinned))
    return tuple(found)


#: An attribute whose value is not the allocation's own (a parameter's), or no different.
_UNPINNED = object()


def _pinned(held: Value, joined: Value, depth: int, at: ParamRef | None = None) -> Value:
    """What of ``held`` differs from the class's ``joined`` and was fixed by the
    allocation: a real stream, nothing, or an object holding only such attributes. A
    stream that is the receiver's own at ``at`` (a copy learnt for the caller's external
    stream there, :mod:`.variants`) is pinned as it was, passed on to ``self.m()``."""
    if isinstance(held, ExtStream):
        if held.param is not None:
            return held if at is not None and held.param == at and not held.also else _UNPINNED
        same = isinstance(joined, ExtStream) and joined.must == held.must
        return _UNPINNED if same else held
    if isinstance(held, Instance):
        if held.declared or depth <= 0:
            return _UNPINNED
        if not isinstance(joined, Instance) or joined.cls is not held.cls:
            return _UNPINNED
        fields = []
        for name, item in held.fields:
            inner = at.child(name) if at is not None and held.param == at else None
            kept = _pinned(item, joined.field(name)[1], depth - 1, inner)
            if kept is not _UNPINNED:
                fields.append((name, kept))
        return replace(held, fields=tuple(fields)) if fields else _UNPINNED
    if isinstance(held, Seq) or not isinstance(joined, ExtStream):
        return _UNPINNED
    return held  # no stream where the class's join may have one


def _anchored(value: Value, ref: ParamRef) -> Value:
    """A pinned object as the copy reads it: what was not pinned is the caller's, and so is
    a stream the caller holds as its own receiver's (what its caller pinned there)."""
    if isinstance(value, ExtStream) and value.param is not None and not value.also:
        return replace(value, param=ref)
    if not isinstance(value, Instance):
        return value
    fields = tuple((n, _anchored(v, ref.child(n))) for n, v in value.fields)
    return replace(value, fields=fields, param=ref)


def _may_stream(value: Value, depth: int) -> bool:
    """A stream the class's own code makes on some paths only (or an object holding one)."""
    if isinstance(value, ExtStream):
        return not value.must and value.param is None
    if isinstance(value, Instance) and depth > 0:
        return any(_may_stream(item, depth - 1) for _, item in value.fields)
    return False


def _shape(value: Value) -> object:
    """What decides the rules for a held value: external on every path or on some, or
    nothing; an object's, per attribute."""
    if isinstance(value, ExtStream):
        return ("ext", value.must)
    if isinstance(value, Instance):
        return (value.cls.name, tuple((n, _shape(v)) for n, v in value.fields))
    return None


def _origins(cls: ClassInfo, pinned: tuple[tuple[str, Value], ...]) -> set[int]:
    """Where the class-level join of each pinned attribute became a "may be" external
    stream: the generic body's findings on them are the calls' (:mod:`.decisions`)."""
    found: set[int] = set()
    stack = [cls.attr(name) for name, _ in pinned]
    while stack:
        value = stack.pop()
        if isinstance(value, ExtStream) and not value.must:
            found.add(id(value.origin))
        elif isinstance(value, Instance):
            stack.extend(item for _, item in value.fields)
    return found


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


#: The longest attribute path of a parameter whose literals a copy is learnt for
#: (``cfg.placement.comm``).
MAX_ATTR_PATH = 3


def _config(value: Value) -> bool:
    """An object whose fields may hold literals: built at the caller, or a copy's
    parameter holding the literals it was learnt with (not an object known only by its
    declared type)."""
    return isinstance(value, Instance) and not value.declared


def _held_along(value: Value, path: tuple[str, ...]) -> Value:
    """What the caller's object holds at ``path``: its own fields, else (an object built
    there, not a parameter's) its class's."""
    for step in path:
        if not _config(value):
            return None
        present, held = value.field(step)  # type: ignore[union-attr]
        if not present and value.param is not None:  # type: ignore[union-attr]
            return None
        value = held if present else class_flag(value.cls, step)  # type: ignore[union-attr]
    return value


def _rebuilt(
    value: Value,
    pairs: tuple[tuple[tuple[str, ...], Value], ...],
    ref: ParamRef,
    base: Instance | None,
) -> Instance:
    """The parameter as a copy reads it: an object of the argument's class holding the
    literals at ``pairs``' paths, whatever else it holds read from the caller's object
    (``ref``), so the copy's other findings stay the caller's."""
    cls = base.cls if base is not None else value.cls  # type: ignore[union-attr]
    if base is not None:
        fields = dict(base.fields)
    else:  # not a class default: a field the caller may have given (``handle=h``)
        names = (*cls.attrs, *(name for name, _ in value.fields))  # type: ignore[union-attr]
        fields = {name: symbolic(ref.child(name)) for name in names}
    deeper: dict[str, list[tuple[tuple[str, ...], Value]]] = {}
    for path, lit in pairs:
        if len(path) == 1:
            fields[path[0]] = lit
        else:
            deeper.setdefault(path[0], []).append((path[1:], lit))
    for step, rest in deeper.items():
        inner = _held_along(value, (step,))
        if isinstance(inner, Instance):
            fields[step] = _rebuilt(inner, tuple(rest), ref.child(step), None)
    return Instance(cls, tuple(fields.items()), ref)


def _text(value: Value) -> bool:
    """A string literal whose text the interpreter keeps (``""`` stands for any string)."""
    return isinstance(value, Const) and type(value.value) is str and value.value != ""


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
