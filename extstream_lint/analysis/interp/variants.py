"""Copies of a summary exported with it, for callers in other modules (issue 38 across the
module boundary).

A copy for a caller's literals (:mod:`.constants`) needs the function's body, which only
the module defining it has: a caller in another module sees the summary learnt with the
parameter unknown, so ``pick(h, False)`` or ``Lane(Cfg(kind=Kind.MANAGED))`` from
``main.py`` read the "may be" of both branches. So the module defining the function learns
the copies its callers may ask for once, when its summary is made, and exports them with
the function (:attr:`.values.FunctionInfo.variants`); a caller in another module uses the
one keyed by the literal its argument holds there, and runs no body.

Which copies (bounded, computed once per module, never per caller):

* only for a function whose generic summary reads streams (a literal elsewhere decides
  nothing the rules read: :func:`.holding.reads_streams`);
* per parameter its body tests or compares (:func:`..source.bodies.tested_params`) or
  passes on to a function that does (:attr:`_passed_on`): ``True`` and ``False``, and
  where it compares it (:func:`..source.bodies.decided_params`) the members of each enum
  class the module defines;
* per one-step attribute of such a parameter (``cfg.kind``, ``opts.borrowed``, and what it
  passes on: :attr:`_passed_attrs`), on the module's class that has that field (the
  parameter's annotation decides between several): the members of the enum whose member
  is the field's default, else ``True`` and ``False``;
* per attribute of a method's receiver whose class-level join is a stream only some
  instances get (``self.s = make(cfg)``, a "may be": :func:`.constants._own_streams`): a
  copy reading the receiver's own stream there (the caller's, as a parameter's) and one
  reading none, so a caller whose allocation of the object is visible reports the
  operation at its call on the external instance (issue 38, item 2, across modules);
* one literal at a time (the rest of the arguments stay the caller's), at most
  :data:`MAX_VARIANTS` per function and :data:`.constants.MAX_COPIES` per module.

A caller whose argument holds none of those literals there uses the generic summary, as
before. What a copy reports stays at the caller, as for a copy learnt in the same module.
The method's own module, linted alone, does not know its importers: its "may be" inside
the method stays (a module's findings never depend on who imports it).
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ... import contract as c
from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.holding import reads_streams
from ..abstract.members import Member, member_of
from ..abstract.paths import symbolic
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Seq, Value
from ..semantics.sites import Arg
from ..source.compared import _EXTERNAL_NAME, Compared
from .constants import (
    MAX_ATTR_PATH,
    _held_along,
    _may_stream,
    _own_streams,
    _text,
    class_flag,
    new_copy,
)

#: Copies exported per function at most.
MAX_VARIANTS = 8
#: Methods of its class whose reads of ``self`` a method's own count with (through ``self.m()``).
_MAX_CALLED = 16

_FLAGS: tuple[Value, ...] = (Const(True), Const(False))
#: The ``**kwargs`` a caller gives that turn a hazard on, as the call binds them (binding.py):
#: ``send(t, non_blocking=True)``, ``buffer(n, pin_memory=True)``.
_SPREAD_FLAGS: tuple[Value, ...] = tuple(
    Seq((Const(True),), ((key, Const(True)),)) for key in (c.NON_BLOCKING, c.PIN_MEMORY)
)
_SPREAD_TEXTS = frozenset(repr(lit) for lit in _SPREAD_FLAGS)
#: The keys of a method's copies for the receiver's own stream (:func:`.constants._own_streams`):
#: an external stream its allocation gave it (the caller's, read as the parameter's), or none.
_PIN_EXT, _PIN_NONE = "pin:external", "pin:none"

#: A variant's key: parameter index, attribute path (``()``: the argument itself) and the
#: ``repr`` of the literal it was learnt with.
VariantKey = tuple[int, tuple[str, ...], str]
#: The string a copy is learnt with for a caller's string the body compares with none of
#: its literals (``pick("other")`` where it tests ``kind == "external"``): every comparison
#: false, as for any such string; listed after those literals' own copies.
_OTHER = Const("\x00other")
_OTHER_TEXT = repr(_OTHER)
#: The classes of the objects along a variant's attribute path, outermost first.
_Chain = tuple[ClassInfo, ...]


class Variants:
    """Exported copies of this module's summaries, and their choice at a caller."""

    def export_variants(self) -> None:
        """Learn the copies other modules' callers may ask for (after the learning passes,
        before the summary is exported)."""
        scope = self._scopes.get(self.module)
        if scope is None:
            return
        classes = [v for v in scope.summary.values() if isinstance(v, ClassInfo)]
        enums = _enum_members(classes)
        copies: dict[tuple[object, ...], FunctionInfo] = {}
        # What the copies decide is not this module's callers' (:mod:`.decisions`): a lint
        # of this module that reuses this interpreter reports its generic bodies as before.
        with self.decisions_kept():  # type: ignore[attr-defined]
            self._learn_variants(classes, enums, copies)

    def _learn_variants(
        self,
        classes: list[ClassInfo],
        enums: tuple[Value, ...],
        copies: dict[tuple[object, ...], FunctionInfo],
    ) -> None:
        names = _name_tables(self._scopes[self.module].summary)
        for info, (node, fscope, cls) in list(self._definitions.items()):
            if info.enclosing is not None or info in self._copy_of or info.variants:
                continue
            pins = self._pin_keys(info, node, cls) if cls is not None else []
            if not pins and not (
                info in self._maybe_in
                or reads_streams(info)
                or self._hazard_flags(info)
                or ((names or _tables_of(cls)) and self._looks_up(node, names, cls))
                or ((False, "getattr") in self._bodies.called(node) and self._names_npu(node))
            ):
                continue
            found: list[tuple[VariantKey, FunctionInfo]] = []
            keys = pins + self._variant_keys(info, node, cls, classes, enums)
            for index, path, lit, holder in keys:
                if len(found) >= MAX_VARIANTS:
                    break
                held = holder if not isinstance(holder, tuple) else tuple(map(id, holder))
                key = (info, self._passes, index, path, repr(lit), held)
                made = new_copy(copies, key, info)
                if made is None:
                    break
                special, _ = made
                ref = ParamRef(special, index)
                if isinstance(holder, str):  # the receiver's own stream, pinned
                    fixed = {0: _pinned_self(cls, path, holder == _PIN_EXT, ref)}  # type: ignore[arg-type]
                elif holder is None:
                    fixed = {index: lit}
                elif index == 0 and cls is not None and holder[0] is cls:  # self.flag
                    fixed = {0: _flagged(holder, path, lit, ref)}
                else:
                    fixed = {index: _holding(holder, path, lit, ref)}
                self._copy_of[special] = info
                self.learn_copy(node, fscope, cls, special, fixed)  # type: ignore[attr-defined]
                if info.returns_known:
                    special.returns, special.returns_seen = info.returns, True
                text = holder if isinstance(holder, str) else repr(lit)
                found.append(((index, path, text), special))
            if found:
                info.variants = tuple(found)

    def _variant_keys(
        self,
        info: FunctionInfo,
        node: cst.FunctionDef,
        cls: ClassInfo | None,
        classes: list[ClassInfo],
        enums: tuple[Value, ...],
    ) -> list[tuple[int, tuple[str, ...], Value, _Chain | str | None]]:
        keys: list[tuple[int, tuple[str, ...], Value, _Chain | str | None]] = []
        tested = self._bodies.tested(node)
        passed_on = self._passed_on.get(info, set())
        passed_attrs = self._passed_attrs.get(info, set())
        first = 1 if cls is not None and "staticmethod" not in info.decorators else 0
        annotations = _annotations(node)
        literals = self._bodies.literals(node)
        for index, (name, kind) in enumerate(info.params):
            if kind == "starstar" and self.hazard_spread and info in self.hazard_spread:
                keys.extend((index, (), lit, None) for lit in _SPREAD_FLAGS)  # t.to(d, **kw)
            if kind in ("star", "starstar"):
                continue
            receiver = index < first  # self.flag: the literal the caller's object holds
            if receiver and (index or cls is None or not self._bodies.self_uses(node).reads):
                continue
            if receiver:
                annotations[name] = cls.name  # type: ignore[union-attr]
            elif name in tested or index in passed_on:
                compared = enums if name in self._bodies.decided(node) else ()
                keys.extend((index, (), lit, None) for lit in (*_FLAGS, *compared))
            if not receiver and name in literals:  # ``kind == "external"``, ``_PLUGINS[name]``
                lits = _with_other(self._compared(literals[name], cls))
                keys.extend((index, (), lit, None) for lit in lits)
            prefix = f"{name}."
            paths = {tuple(t[len(prefix) :].split(".")) for t in tested if t.startswith(prefix)}
            paths.update(path for i, path in passed_attrs if i == index)
            for path in sorted(p for p in paths if len(p) <= MAX_ATTR_PATH):
                if not all(step.isidentifier() for step in path):
                    continue
                chain = _chain(classes, path, annotations.get(name))
                if chain is not None and (not receiver or chain[0] is cls):
                    held = _field_literals(chain[-1], path[-1])
                    keys.extend((index, path, lit, chain) for lit in held)
                    # ``case LaneSpec(kind="pool")``, ``spec.kind == "pool"``: a string's
                    compared = literals.get(".".join((name, *path)), ((), ()))[0]
                    lits = _with_other([Const(lit) for lit in compared])
                    keys.extend((index, path, lit, chain) for lit in lits)
        return keys

    def _looks_up(
        self, node: cst.FunctionDef, names: frozenset[str], cls: ClassInfo | None
    ) -> bool:
        """A parameter is looked up in one of this module's tables of names (a plugin's
        module or class picked by the caller's literal: ``import_module(_PLUGINS[name])``,
        ``getattr(mod, _CLASSES[kind])``) or in its class's registry (``cls.registry[name]``,
        filled by ``__init_subclass__``): what it gives is unknown until the key is."""
        tables = names | _tables_of(cls)
        return any(set(keyed) & tables for _, keyed in self._bodies.literals(node).values())

    def _names_npu(self, node: cst.FunctionDef) -> bool:
        """A parameter names an attribute of torch_npu's module (``getattr(torch.npu,
        factory)(**kw)``): the caller's ``"ExternalStream"`` makes an external stream."""
        return any(_EXTERNAL_NAME in lits for lits, _ in self._bodies.literals(node).values())

    def _compared(self, compared: Compared, cls: ClassInfo | None) -> list[Value]:
        """The string and integer literals a parameter is compared with, then the literal
        keys of this module's dicts it is looked up in (``_PLUGINS[name]``), or of its
        class's (``cls.registry[name]``)."""
        lits, containers = compared
        found = dict.fromkeys(lits)
        summary = self._scopes[self.module].summary
        for name in containers:
            if name[:1] == ".":
                held = cls.attr(name[1:]) if cls is not None else None
            else:
                held = summary.get(name)
            keys = held.keys if isinstance(held, Seq) else ()
            found.update((key, None) for key, _ in keys if type(key) in (str, int))
        return [Const(lit) for lit in found][:MAX_VARIANTS]

    def _hazard_flags(self, info: FunctionInfo) -> bool:
        """A parameter reaches a copy's ``non_blocking=`` or a factory's ``pin_memory=`` (a
        flag the hazard rules decide on: XST201), as a flag or through ``**kwargs``."""
        return bool(self.hazard_spread) and info in self.hazard_spread  # type: ignore[operator]

    def _pin_keys(
        self, info: FunctionInfo, node: cst.FunctionDef, cls: ClassInfo
    ) -> list[tuple[int, tuple[str, ...], Value, _Chain | str | None]]:
        """The receiver's streams only some instances get that the method reads, itself or
        through the methods of its class it calls on ``self`` (``self.streams.comm`` read
        by ``self._reduce()`` that ``fit`` calls): per path to such a stream (an object
        held there, ``self.streams``, to :data:`.constants.MAX_ATTR_PATH` steps), a copy
        reading an external stream there and one reading none."""
        if info.decorators & {"staticmethod", "classmethod"}:
            return []
        held = {name: v for name, v in cls.attrs.items() if _may_stream(v, MAX_ATTR_PATH - 1)}
        if not held:
            return []
        keys: list[tuple[int, tuple[str, ...], Value, _Chain | str | None]] = []
        for attr in sorted(self._self_reads(node, cls) & held.keys()):
            value = cls.attr(attr)  # self.s: a stream some instances get, or an object's
            for path in _stream_paths(value, (attr,), MAX_ATTR_PATH):
                keys.extend((0, path, None, pin) for pin in (_PIN_EXT, _PIN_NONE))
        return keys

    def _self_reads(self, node: cst.FunctionDef, cls: ClassInfo) -> set[str]:
        """The attributes of ``self`` a method reads and does not set itself, with those
        the methods of its class it calls on ``self`` read (at most :data:`_MAX_CALLED`
        methods)."""
        reads: set[str] = set()
        seen = {id(node)}
        pending = [node]
        while pending:
            uses = self._bodies.self_uses(pending.pop())
            reads |= uses.reads - uses.writes
            for name in sorted(uses.reads):
                method = cls.methods.get(name)
                where = self._definitions.get(method) if method is not None else None
                if where is not None and id(where[0]) not in seen and len(seen) < _MAX_CALLED:
                    seen.add(id(where[0]))
                    pending.append(where[0])
        return reads

    def exported_variant(self, info: FunctionInfo, args: dict[int, Arg]) -> FunctionInfo | None:
        """The copy ``info``'s module exported for the literal this call's argument holds
        at one of its keys; ``None`` when it holds none of them. A parameter of the
        function being learnt passed there has those paths noted, so its own callers'
        literals are followed on (:meth:`.constants.Constants._note_passed_on`)."""
        for (index, path, text), special in info.variants:
            arg = args.get(index)
            if arg is None:
                continue
            value = arg.value
            if text in (_PIN_EXT, _PIN_NONE):  # what the receiver's allocation gave it
                cls = value.cls if isinstance(value, Instance) else None
                own = dict(_own_streams(arg, cls)).get(path[0], _PIN_NONE)
                for step in path[1:]:  # self.streams.comm: the object held there, its own
                    present, inner = own.field(step) if isinstance(own, Instance) else (0, 0)
                    own = inner if present else _PIN_NONE
                if own is _PIN_NONE or isinstance(own, Instance):
                    continue  # not pinned by its allocation, or an object holding streams
                if (text == _PIN_EXT) == isinstance(own, ExtStream):
                    return special
                continue
            if isinstance(value, (ExtStream, Instance)) and value.param is not None:
                if text in _SPREAD_TEXTS:  # another module's **kwargs reaching a flag
                    self.note_hazard_spread(value)  # gradmode.py
                self._note_passed_on(value, (path,))
            held = _held_along(value, path) if path else value
            if held is not None and repr(held) == text:
                return special
            if text == _OTHER_TEXT and _text(held):  # ``""`` is any string: not another
                return special  # a string none of the earlier copies of this path compared
        return None


def _with_other(lits: list[Value]) -> list[Value]:
    """``lits`` and, when they are all strings, :data:`_OTHER` (any other string)."""
    if lits and all(isinstance(v, Const) and type(v.value) is str for v in lits):
        return [*lits, _OTHER]
    return lits


def _name_tables(summary: dict[str, Value]) -> frozenset[str]:
    """This module's dict displays of string literals by literal keys (``{"pool":
    "pkg.plugins.pool"}``, ``{"external": "AclProvider"}``): the tables of names a plugin
    loader looks a caller's literal up in."""
    return frozenset(
        name
        for name, held in summary.items()
        if isinstance(held, Seq)
        and held.keys
        and all(isinstance(v, Const) and type(v.value) is str for _, v in held.keys)
    )


def _tables_of(cls: ClassInfo | None) -> frozenset[str]:
    """A class's dicts by literal keys (``registry = {}`` that ``__init_subclass__`` fills),
    spelt as :func:`..source.compared.compared_literals` names them (``.registry``)."""
    if cls is None:
        return frozenset()
    return frozenset(
        f".{name}" for name, held in cls.attrs.items() if isinstance(held, Seq) and held.keys
    )


def _stream_paths(value: Value, path: tuple[str, ...], depth: int) -> list[tuple[str, ...]]:
    """The paths from ``path`` to the streams only some instances get in ``value``."""
    if isinstance(value, ExtStream):
        return [path] if _may_stream(value, 0) else []
    if not isinstance(value, Instance) or len(path) >= depth:
        return []
    found = []
    for name, item in value.fields:
        found.extend(_stream_paths(item, (*path, name), depth))
    return found


def _pinned_self(cls: ClassInfo, path: tuple[str, ...], external: bool, ref: ParamRef) -> Instance:
    """``self`` of a copy reading its own stream at ``path`` (the caller's, as a parameter's,
    or none): the objects held on the way are the class's, that one attribute replaced."""
    refs = [ref]
    for step in path:
        refs.append(refs[-1].child(step))
    held: Value = symbolic(refs[-1]) if external else None
    holders: list[Value] = [None]
    for step in path[:-1]:
        holders.append(cls.attr(step) if len(holders) == 1 else holders[-1].field(step)[1])  # type: ignore[union-attr]
    for depth in range(len(path) - 1, 0, -1):
        outer = holders[depth]
        assert isinstance(outer, Instance)
        held = replace(outer.with_field(path[depth], held), param=refs[depth])
    return Instance(cls, ((path[0], held),), ref)


def _enum_members(classes: list[ClassInfo]) -> tuple[Value, ...]:
    """The members of the enum classes among ``classes``, in order."""
    found: list[Value] = []
    for cls in classes:
        found.extend(v for v in cls.attrs.values() if _member_of_class(v, cls))
    return tuple(found)


def _member_of_class(value: Value, cls: ClassInfo) -> bool:
    member = member_of(value)
    return member is not None and member.cls is cls


def _field_literals(holder: ClassInfo, step: str) -> tuple[Value, ...]:
    """The literals a field may hold: its default's enum class's members (a class-level
    default, or its ``__init__`` parameter's), else flags."""
    member = member_of(holder.attrs.get(step)) or member_of(_init_default(holder, step))
    if isinstance(member, Member) and isinstance(member.cls, ClassInfo):
        enum_cls = member.cls
        return tuple(v for v in enum_cls.attrs.values() if _member_of_class(v, enum_cls))
    return _FLAGS


def _holder(classes: list[ClassInfo], step: str, annotated: str | None) -> ClassInfo | None:
    """The module's class whose instances hold the field ``step``: the annotated one, else
    the only one that has it."""
    having = [c for c in classes if step in _field_names(c)]
    if annotated is not None:
        return next((c for c in having if c.name == annotated), None)
    return having[0] if len(having) == 1 else None


def _chain(classes: list[ClassInfo], path: tuple[str, ...], annotated: str | None) -> _Chain | None:
    """The classes of the objects along ``path`` (``cfg.placement.comm``: the config's class,
    then its ``placement``'s), the last one holding the literal's field: the first the
    annotated one, else the module's only class with that field; each next one the class of
    the object the previous one holds there by default (a dataclass's ``field(
    default_factory=Placement)``, a class attribute), else the module's only class with the
    next field."""
    holder = _holder(classes, path[0], annotated)
    found = []
    for step, nxt in zip(path, path[1:]):
        if holder is None:
            return None
        found.append(holder)
        held = _default_of(holder, step)
        if isinstance(held, Instance) and nxt in _field_names(held.cls):
            holder = held.cls
        else:
            holder = _holder(classes, nxt, None)
    return (*found, holder) if holder is not None else None


def _default_of(cls: ClassInfo, step: str) -> Value:
    """What an instance of ``cls`` built without ``step`` holds there: the class's, else the
    default its generated ``__init__`` stores (``field(default_factory=...)``)."""
    held = class_flag(cls, step)
    return _init_default(cls, step) if held is None else held


def _flagged(chain: _Chain, path: tuple[str, ...], lit: Value, ref: ParamRef) -> Instance:
    """``self`` of a copy learnt for the literal its object holds at ``path``
    (``self.borrowed``, ``self.cfg.kind``): that attribute only, every other one read as
    the class's, as in the summary (:func:`.constants._holding`, in the module)."""
    held = lit if len(path) == 1 else _flagged(chain[1:], path[1:], lit, ref.child(path[0]))
    return Instance(chain[0], ((path[0], held),), ref)


def _field_names(cls: ClassInfo) -> dict[str, None]:
    """The attributes every instance of ``cls`` holds: its fields, class attributes and
    what its ``__init__`` stores on ``self`` (``self.mode = mode``)."""
    init = cls.methods.get("__init__")
    stored = init.summary.sets_attrs if init is not None else {}
    own = (path[0] for index, path in stored if index == 0 and len(path) == 1)
    return dict.fromkeys((*cls.fields, *cls.attrs, *own))


def _init_default(cls: ClassInfo, step: str) -> Value:
    """The default of the ``__init__`` parameter stored as ``self.<step>`` as given
    (``def __init__(self, mode=Mode.PRIVATE): self.mode = mode``, a dataclass's generated
    one: a field's default or ``default_factory``)."""
    init = cls.methods.get("__init__")
    stored = init.summary.sets_attrs.get((0, (step,))) if init is not None else None
    ref = stored.param if isinstance(stored, (ExtStream, Instance)) else None
    if ref is None or ref.owner is not init or ref.path or ref.index < 1:
        return None
    return init.defaults.get(ref.index)


def _holding(chain: _Chain, path: tuple[str, ...], lit: Value, ref: ParamRef) -> Instance:
    """The parameter as the copy reads it: an instance of ``chain[0]`` holding ``lit`` at
    ``path`` (through objects of the next classes of ``chain``), every other field the
    caller's (symbolic)."""
    cls = chain[0]
    fields = {name: symbolic(ref.child(name)) for name in _field_names(cls)}
    step = path[0]
    fields[step] = lit if len(path) == 1 else _holding(chain[1:], path[1:], lit, ref.child(step))
    return Instance(cls, tuple(fields.items()), ref)


def _annotations(node: cst.FunctionDef) -> dict[str, str]:
    """Parameters annotated with a plain name (``cfg: Cfg``): the name."""
    params = node.params
    found = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        annotation = param.annotation
        if annotation is not None and isinstance(annotation.annotation, cst.Name):
            found[param.name.value] = annotation.annotation.value
    return found
