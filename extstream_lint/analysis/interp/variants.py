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
  nothing the rules read: :func:`.constants.reads_streams`);
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

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.members import Member, member_of
from ..abstract.paths import symbolic
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Value
from ..semantics.sites import Arg
from .constants import _held_along, _may_stream, _own_streams, new_copy, reads_streams

#: Copies exported per function at most.
MAX_VARIANTS = 8

_FLAGS: tuple[Value, ...] = (Const(True), Const(False))
#: The keys of a method's copies for the receiver's own stream (:func:`.constants._own_streams`):
#: an external stream its allocation gave it (the caller's, read as the parameter's), or none.
_PIN_EXT, _PIN_NONE = "pin:external", "pin:none"

#: A variant's key: parameter index, attribute path (``()``: the argument itself) and the
#: ``repr`` of the literal it was learnt with.
VariantKey = tuple[int, tuple[str, ...], str]


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
        decided = {info: set(keys) for info, keys in self._decided_keys.items()}
        try:
            self._learn_variants(classes, enums, copies)
        finally:
            self._decided_keys = decided

    def _learn_variants(
        self,
        classes: list[ClassInfo],
        enums: tuple[Value, ...],
        copies: dict[tuple[object, ...], FunctionInfo],
    ) -> None:
        for info, (node, fscope, cls) in list(self._definitions.items()):
            if info.enclosing is not None or info in self._copy_of or info.variants:
                continue
            if not (info in self._maybe_in or reads_streams(info)):
                continue
            found: list[tuple[VariantKey, FunctionInfo]] = []
            for index, path, lit, holder in self._variant_keys(info, node, cls, classes, enums):
                if len(found) >= MAX_VARIANTS:
                    break
                key = (info, self._passes, index, path, repr(lit), repr(holder))
                made = new_copy(copies, key, info)
                if made is None:
                    break
                special, _ = made
                ref = ParamRef(special, index)
                if isinstance(holder, str):  # the receiver's own stream, pinned
                    own = symbolic(ref.child(path[0])) if holder == _PIN_EXT else None
                    fixed = {0: Instance(cls, ((path[0], own),), ref)}  # type: ignore[arg-type]
                elif holder is None:
                    fixed = {index: lit}
                else:
                    fixed = {index: _holding(holder, path[0], lit, ref)}
                self._copy_of[special] = info
                saved = (self.learning, self.reporting, self._loops)
                self.learning, self.reporting, self._loops = True, False, []
                try:
                    self._run_function(node, fscope, cls, special, fixed)
                finally:
                    self.learning, self.reporting, self._loops = saved
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
    ) -> list[tuple[int, tuple[str, ...], Value, ClassInfo | str | None]]:
        keys: list[tuple[int, tuple[str, ...], Value, ClassInfo | str | None]] = []
        if cls is not None and not info.decorators & {"staticmethod", "classmethod"}:
            uses = self._bodies.self_uses(node)
            for attr in sorted(uses.reads - uses.writes):
                if _may_stream(cls.attr(attr), 0):  # self.s: a stream some instances get
                    keys.extend((0, (attr,), None, pin) for pin in (_PIN_EXT, _PIN_NONE))
        tested = self._bodies.tested(node)
        passed_on = self._passed_on.get(info, set())
        passed_attrs = self._passed_attrs.get(info, set())
        first = 1 if cls is not None and "staticmethod" not in info.decorators else 0
        annotations = _annotations(node)
        for index, (name, kind) in enumerate(info.params):
            if index < first or kind in ("star", "starstar"):
                continue
            if name in tested or index in passed_on:
                compared = enums if name in self._bodies.decided(node) else ()
                keys.extend((index, (), lit, None) for lit in (*_FLAGS, *compared))
            prefix = f"{name}."
            steps = {t[len(prefix) :] for t in tested if t.startswith(prefix)}
            steps.update(path[0] for i, path in passed_attrs if i == index and len(path) == 1)
            for step in sorted(s for s in steps if s.isidentifier()):
                holder = _holder(classes, step, annotations.get(name))
                if holder is not None:
                    literals = _field_literals(holder, step)
                    keys.extend((index, (step,), lit, holder) for lit in literals)
        return keys

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
                if own is _PIN_NONE or isinstance(own, Instance):
                    continue  # not pinned by its allocation, or an object holding streams
                if (text == _PIN_EXT) == isinstance(own, ExtStream):
                    return special
                continue
            if isinstance(value, (ExtStream, Instance)) and value.param is not None:
                self._note_passed_on(value, (path,))
            held = _held_along(value, path) if path else value
            if held is not None and repr(held) == text:
                return special
        return None


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
    """The literals a field may hold: its default's enum class's members, else flags."""
    member = member_of(holder.attrs.get(step))
    if isinstance(member, Member) and isinstance(member.cls, ClassInfo):
        enum_cls = member.cls
        return tuple(v for v in enum_cls.attrs.values() if _member_of_class(v, enum_cls))
    return _FLAGS


def _holder(classes: list[ClassInfo], step: str, annotated: str | None) -> ClassInfo | None:
    """The module's class whose instances hold the field ``step``: the annotated one, else
    the only one that has it."""
    having = [c for c in classes if step in c.fields or step in c.attrs]
    if annotated is not None:
        return next((c for c in having if c.name == annotated), None)
    return having[0] if len(having) == 1 else None


def _holding(cls: ClassInfo, step: str, lit: Value, ref: ParamRef) -> Instance:
    """The parameter as the copy reads it: an instance of ``cls`` holding ``lit`` at
    ``step``, every other field the caller's (symbolic)."""
    names = dict.fromkeys((*cls.fields, *cls.attrs))
    fields = {name: symbolic(ref.child(name)) for name in names}
    fields[step] = lit
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
