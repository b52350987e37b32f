"""Assignment to an attribute (language reference 7.2, 3.3.2.2): ``obj.name = value``
binds the instance's own attribute, unless the class attribute ``name`` is a data
descriptor (a property with a setter, an object whose class has ``__set__``): then
``type(obj).__dict__["name"].__set__(obj, value)`` runs instead, and ``del obj.name`` runs
``__delete__`` (a property's deleter). The setter's summary is applied at the assignment as
at a call: what it stores on ``self`` lands on the caller's object (``self._lane = value``
behind ``t.lane = ext``), its refusals are reported at the assignment line.

When a class is created, each descriptor's ``__set_name__(cls, name)`` runs (3.3.3.6), so a
descriptor storing under a name derived from its own (``"_" + name``) stores there.

The instance's own attribute is still bound beside the setter's effects (a getter read
back through the same name then answers what was assigned where the setter's store is not
followed).

A mixin of :class:`.interpreter.Interpreter`, split from :mod:`.core`.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, Ref
from ..abstract.state import State
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Module, Value
from ..semantics.effects import DEFAULT_CAPTURE_STREAM, canonical
from ..semantics.sites import Arg, CallSite
from ..source.syntax import dotted_name, tail_name
from . import summaries as sm
from .binding import bind_arguments
from .core import Scope, is_symbolic

__all__ = ["Attributes"]


class Attributes:
    """Attribute targets: the instance's own attribute, a setter or ``__set__`` run."""

    def bind_attribute(
        self, target: cst.Attribute, owner: Value, value: Value, state: State, scope: Scope
    ) -> None:
        """``obj.name = value`` as the instance's (or the class's, a module's) own
        attribute: what later reads of it see, and what the summary learns."""
        key = dotted_name(target)
        if isinstance(owner, Ref) and key is not None:
            # torch.npu.graph.default_capture_stream = ext
            qualified = canonical(f"{owner.qualname}.{target.attr.value}", self.transfer_to_npu)
            if qualified == DEFAULT_CAPTURE_STREAM:
                self.set_default_capture(value, state)
            return
        if key is not None:
            state.set_path(key, value)
            if isinstance(owner, Module):  # config.CURRENT = s: an effect of the call
                self.note_path_effect(target, key, value, state, scope)
        if is_symbolic(owner) and self.learning and self._function is not None:
            ref = owner.param  # type: ignore[union-attr]
            if ref.owner is self._function:  # def attach(obj, s): obj.s = s (or cls.s)
                path = (*ref.path, target.attr.value)
                self.learn_set_attr(self._function.summary, (ref.index, path), value)
        if (
            isinstance(owner, Instance)
            and owner.param is None
            and scope.kind == "function"
            and isinstance(target.value, cst.Name)
            and state.env.get(target.value.value) is owner
        ):
            # other = Holder(); other.stream = ext: that instance only (it travels with
            # the value, e.g. when returned), not every Holder. ``self.x = ...`` in a
            # method and instances held in globals still go to the class (below).
            state.env[target.value.value] = owner.with_field(target.attr.value, value)
            self.guarantee(owner.cls, target.attr.value, value)  # obj = cls(); obj.s = ...
            return
        if isinstance(owner, ClassInfo):  # cls.s = make() in a classmethod (guarantees.py)
            self.learn_class_attr(owner, target.attr.value, value)  # Holder.current = s:
            self.note_rebound(owner, target.attr.value, value, target.value, state)
        if isinstance(owner, Instance) and self.learning:
            name = target.attr.value
            ref = owner.param
            value = self.view_kept(value)  # type: ignore[attr-defined]
            if ref is None:  # _local.s = s, a global's object: an effect of the call
                self.note_rebound(owner.cls, name, value, target.value, state)
            if ref is not None and ref.owner is self._function:
                self.learn_set_attr(self._function.summary, (ref.index, (*ref.path, name)), value)
            if sm.kept_call(value):  # the class's own method's value: none known
                value = None
            if is_symbolic(value) and ref is not None and ref.index == 0 and not ref.path:
                self.note_fed_attr(owner.cls, name)  # type: ignore[attr-defined]
            if not is_symbolic(value):  # a parameter is per call, not per class
                owner.cls.note_attr(name, self._in_own_init(owner))
                self.learn_attr(owner.cls, name, value)

    def run_setter(
        self, target: cst.Attribute, owner: Value, value: Value, state: State, anchor: cst.CSTNode
    ) -> None:
        """``obj.name = value`` where the class attribute ``name`` is a property with a
        setter or a data descriptor: Python runs ``type(obj).__dict__["name"].__set__(obj,
        value)`` (language reference 3.3.2.2), so what the setter stores on ``obj`` (under
        another name: ``self._lane = value``) is the caller's object's, and its refusals are
        reported at the assignment, as for a call of it."""
        name = target.attr.value
        text = dotted_name(target.value)
        fresh = state.env.get(text) if text is not None else None
        if isinstance(fresh, Instance) and isinstance(owner, Instance) and fresh.cls is owner.cls:
            owner = fresh  # as the assignment left it (its own field set, core.py)
        callee = self.accessor(owner, name, "set", text)
        if callee is None:
            return
        function, receiver, given, label = callee
        held = receiver.value
        if given and isinstance(held, Instance) and _named(held):  # setattr(obj, self.private, v)
            function = self.own_copy(function, {0: held}, ("<set>", id(owner.cls), name))  # type: ignore[attr-defined]
        site = CallSite(anchor, label, [*given, Arg(value, None)])  # type: ignore[arg-type]
        self._call_function(function, anchor, site, receiver, state, self._current(state))

    def delete_attribute(self, target: cst.Attribute, state: State, scope: Scope) -> None:
        """``del obj.name``: the property's deleter or the data descriptor's
        ``__delete__`` runs, as a call of it at the statement."""
        owner = self.eval(target.value, state, scope)
        text = dotted_name(target.value)
        callee = self.accessor(owner, target.attr.value, "delete", text)
        if callee is not None:
            function, receiver, given, label = callee
            site = CallSite(target, label, given)  # type: ignore[arg-type]
            self._call_function(function, target, site, receiver, state, self._current(state))

    def property_made(self, stmt: cst.Assign, state: State, scope: Scope) -> None:
        """``stream = property(fget, fset, fdel)`` in a class body: ``fset`` and ``fdel``
        are what an assignment to / ``del`` of ``obj.stream`` runs."""
        call: cst.Call = stmt.value  # type: ignore[assignment]
        if scope.cls is None or not self.learning or tail_name(call.func) != "property":
            return
        names = [t.target.value for t in stmt.targets if type(t.target) is cst.Name]
        for index, (kind, keyword) in enumerate((("set", "fset"), ("delete", "fdel")), 1):
            given = [
                a
                for i, a in enumerate(call.args)
                if (a.keyword is None and a.star == "" and i == index)
                or (a.keyword is not None and a.keyword.value == keyword)
            ]
            if not given:
                continue
            with self._silenced():
                function = self.eval(given[0].value, state, scope)
            if isinstance(function, FunctionInfo):
                for name in names:
                    scope.cls.accessors[(kind, name)] = function

    def descriptors_named(self, node: cst.ClassDef, cls: ClassInfo) -> None:
        """``type.__new__`` calls ``attr.__set_name__(cls, name)`` for each attribute of the
        new class whose type defines it (language reference 3.3.3.6): each descriptor holds
        what its hook set from its own name (``self.private = "_" + name``), learnt by a copy
        of the hook with the literal name (one per class attribute and pass, bounded as
        every copy is: :func:`.constants.new_copy`)."""
        for name, held in list(cls.attrs.items()):
            if not isinstance(name, str) or not isinstance(held, Instance) or held.param:
                continue
            hook = held.cls.method("__set_name__")
            if hook is None or len(hook.params) != 3:
                continue
            special = self.own_copy(hook, {2: Const(name)}, ("<set_name>", id(cls), name))  # type: ignore[attr-defined]
            site = CallSite(node, "__set_name__", [Arg(cls, None), Arg(Const(name), None)])  # type: ignore[arg-type]
            binding = bind_arguments(special, site, Arg(held, None))
            fields = dict(held.fields)
            for (index, path), value in special.summary.sets_attrs.items():
                if index == 0 and len(path) == 1:
                    fields[path[0]] = sm.substitute(value, binding)
            if fields:
                cls.attrs[name] = Instance(held.cls, tuple(fields.items()))

    @staticmethod
    def accessor(
        owner: Value, name: str, kind: str, text: str | None
    ) -> tuple[FunctionInfo, Arg, list[Arg], str] | None:
        """What ``obj.name = v`` (``kind="set"``) or ``del obj.name`` (``"delete"``) calls:
        the property's ``@name.setter``/``@name.deleter`` function with ``obj`` (spelt
        ``text``), or the data descriptor's ``__set__``/``__delete__`` with the descriptor
        then ``obj``; ``None`` when the class attribute is neither (the instance's own
        attribute is bound). Its last item names it as Python would call it
        (``Trainer.lane.fset``, ``Runner.stream.__set__``)."""
        if not isinstance(owner, Instance):
            return None
        anywhere = False
        for klass in owner.cls.mro():
            found = klass.accessors.get((kind, name))
            if found is not None:
                accessor = "fset" if kind == "set" else "fdel"
                return found, Arg(owner, text), [], f"{klass.name}.{name}.{accessor}"
            if name in klass.methods or name in klass.attrs:
                anywhere = True
                break  # a plain method or attribute of a subclass hides the base's property
        if not anywhere:
            return None  # no class of the MRO has the name: no descriptor either
        descriptor = owner.cls.attr(name)
        if not isinstance(descriptor, Instance) or descriptor.param is not None:
            return None
        method = descriptor.cls.method(f"__{kind}__")
        if method is None:
            return None
        label = f"{owner.cls.name}.{name}.__{kind}__"
        return method, Arg(descriptor, None), [Arg(owner, text)], label


def _named(descriptor: Instance) -> bool:
    """A descriptor holding a name its ``__set_name__`` derived (a literal string)."""
    return any(isinstance(v, Const) and isinstance(v.value, str) for _, v in descriptor.fields)
