"""The object model: what a class's instances hold, and which code runs for them.

Python looks an attribute of an instance up through the MRO of the instance's class, so a
base class's method called on an instance of a subclass runs with ``self`` that instance:
``self._make_stream()`` in an inherited ``__init__`` runs the subclass's override, and
``self.stream`` in an inherited ``flush`` is what the subclass's instances hold. Summaries are
learnt once per function, with ``self`` an instance of the class that defines it; where a
subclass overrides something such a method reads through ``self`` (a method, a class
attribute, an attribute its own methods set), the method is run again for the subclass with
``self`` an instance of it: a *view* (:attr:`.values.ClassInfo.views`), which lookups through
the subclass's MRO answer (object sensitivity bounded by the class hierarchy of the file, as
in points-to analyses that key a method's context by its receiver's class). Which methods need
a view is decided from syntax (what each method reads and sets on ``self``, whether it calls
``super()``), to a fixpoint over the class's bases, so it is the same in every pass.

Class attributes learnt from the bodies that set them start afresh in each learning pass, as
what functions return does (:meth:`.core.Core._learn_return`): a pass that read a helper
before the helper was learnt does not dilute the attribute into a "may" forever.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .. import summaries as sm
from ..effects import method_effects
from ..sites import Arg, CallSite
from ..state import State
from ..syntax import children
from ..values import (
    ClassInfo,
    Const,
    ExtStream,
    Forward,
    FunctionInfo,
    Instance,
    Summary,
    Value,
    join,
)

#: The decorator name a generated ``__init__`` (dataclass, attrs, ``NamedTuple``,
#: ``dataclass_transform``) carries: constructing the class then runs its post-init hook.
RECORD_INIT = "<record __init__>"

#: Library calls that make or copy objects, answered by :meth:`Objects.object_call`. The
#: holders (``threading.local()``, ``SimpleNamespace``, ``ContextVar``) are an instance per
#: allocation site, of a class of that site: what one of them holds is what was stored in it.
OBJECT_CALLS = frozenset(
    {
        "copy.copy",
        "copy.deepcopy",
        "dataclasses.replace",
        "threading.local",
        "types.SimpleNamespace",
        "contextvars.ContextVar",
    }
)
_HOLDERS = frozenset({"threading.local", "types.SimpleNamespace", "contextvars.ContextVar"})
#: What a ``ContextVar`` holds, as an attribute of its allocation site's class.
_VAR_VALUE = "<value>"


@dataclass(frozen=True)
class SelfUses:
    """What a method's body does through its first parameter (syntax only)."""

    reads: frozenset[str]
    writes: frozenset[str]
    calls_super: bool


class Objects:
    """Class attributes learnt per pass, and the views of inherited methods."""

    def learn_attr(self, cls: ClassInfo, name: str, value: Value) -> None:
        """A class attribute (or one set through ``self``) learnt in this pass: the first
        write of a pass replaces what the previous pass left, the others join it. Classes
        of other modules are only ever joined (their own passes are over)."""
        attrs = cls.attrs
        key = (id(cls), name)
        if self._attr_passes.get(key) != self._passes and id(cls) in self._own_classes:
            self._attr_passes[key] = self._passes
            attrs[name] = value
            return
        attrs[name] = join(attrs[name], value) if name in attrs else value

    def learn_set_attr(
        self, summary: Summary, key: tuple[int, tuple[str, ...]], value: Value
    ) -> None:
        """``self.x = v`` in the function being summarised: per pass, like
        :meth:`learn_attr` (a first pass that called a helper not learnt yet saw nothing)."""
        seen = (id(summary), key)
        if self._set_attr_passes.get(seen) == self._passes or key not in summary.sets_attrs:
            self._set_attr_passes[seen] = self._passes
            summary.set_attr(key, value)
            return
        self._set_attr_passes[seen] = self._passes
        if summary.sets_attrs[key] != value:
            summary.sets_attrs[key] = value
            summary.version += 1

    def construct(
        self,
        cls: ClassInfo,
        node: cst.Call,
        site: CallSite,
        state: State,
        current: ExtStream | None,
    ) -> Value:
        """``Cls(...)``: an instance of ``cls`` holding what its ``__init__`` (found through
        the MRO, a generated one for a record class) sets from the arguments, then what a
        dataclass's ``__post_init__`` (attrs: ``__attrs_post_init__``) sets on it."""
        instance = Instance(cls)
        init = cls.method("__init__")
        if init is None:
            return instance
        made = self._run_on(init, instance, node, site, state, current, cls.name)
        if RECORD_INIT in init.decorators:
            post = cls.method("__post_init__") or cls.method("__attrs_post_init__")
            if post is not None:
                made = self._run_on(post, made, node, None, state, current, cls.name)
        if self.learning:
            self._hold_self(cls, made)
        return made

    def _run_on(
        self,
        method: FunctionInfo,
        instance: Instance,
        node: cst.Call,
        site: CallSite | None,
        state: State,
        current: ExtStream | None,
        name: str,
    ) -> Instance:
        """Apply a method that sets attributes of ``self`` to a new instance."""
        binding = sm.bind_arguments(method, site, Arg(instance, None))
        binding.current = current
        self._apply(method, node, binding, state, name)
        for (index, path), value in method.summary.sets_attrs.items():
            if index == 0 and len(path) == 1:
                instance = instance.with_field(path[0], sm.substitute(value, binding))
        return instance

    def _hold_self(self, cls: ClassInfo, made: Instance) -> None:
        """``Helper(self)`` in a method: the helper holds the method's own object, whose
        class is known where it is built; the helper's methods read back through it."""
        function = self._function
        for name, value in made.fields:
            ref = value.param if isinstance(value, Instance) else None
            if ref is not None and ref.owner is function and ref.index == 0 and not ref.path:
                self.learn_attr(cls, name, Instance(value.cls))  # type: ignore[union-attr]

    def transformed(
        self,
        node: cst.ClassDef,
        cls: ClassInfo,
        decorators: list[Value],
        metaclasses: list[Value],
    ) -> bool:
        """PEP 681: a class gets a dataclass's ``__init__`` when a decorator it is given was
        declared with ``@dataclass_transform()``, when a class it derives from was, or when
        its metaclass was. (A class decorated with it directly only passes it on.)"""
        meta = any(isinstance(m, ClassInfo) and m.transform for m in metaclasses)
        marks = (
            _tail(d.decorator.func) for d in node.decorators if isinstance(d.decorator, cst.Call)
        )
        cls.transform = meta or any(mark == "dataclass_transform" for mark in marks)
        if meta:
            return True
        if any(
            isinstance(d, FunctionInfo) and "dataclass_transform" in d.decorators
            for d in decorators
        ):
            return True
        return any(base.transform for base in cls.mro()[1:])

    def object_call(self, qualname: str, site: CallSite) -> Value:
        """A library call of :data:`OBJECT_CALLS`."""
        first = site.positional[0].value if site.positional else None
        if qualname in ("copy.copy", "copy.deepcopy"):
            return first  # the same class, the same attributes
        if qualname == "dataclasses.replace":
            return self._replaced(first, site)
        cls = self._site_classes.get(site.node)
        if cls is None:
            cls = self._site_classes[site.node] = ClassInfo(qualname)
            self._own_classes.add(id(cls))
        if qualname == "contextvars.ContextVar":
            default = site.keywords.get("default")
            if default is not None and self.learning:
                self.learn_attr(cls, _VAR_VALUE, default.value)
            return Instance(cls)
        fields = () if site.double_star else tuple((k, a.value) for k, a in site.keywords.items())
        return Instance(cls, fields)

    def object_method(
        self,
        receiver: Instance,
        method: str,
        site: CallSite,
        state: State,
        current: ExtStream | None,
    ) -> Value:
        """A method the class does not define: a ``ContextVar``'s ``set`` / ``get``, a
        ``NamedTuple``'s ``_replace``."""
        cls = receiver.cls
        if cls.name == "contextvars.ContextVar":
            if method == "set" and site.positional and self.learning:
                value = site.positional[0].value
                if not (isinstance(value, ExtStream) and value.param is not None):
                    self.learn_attr(cls, _VAR_VALUE, value)
            elif method == "get":
                held = cls.attrs.get(_VAR_VALUE)
                default = site.positional[0].value if site.positional else None
                return join(held, default) if default is not None else held
            return None
        if method == "_replace" and cls.fields:
            return self._replaced(receiver, site)
        target = self.delegate(receiver, method)
        if isinstance(target, ExtStream):  # Proxy(ext).synchronize(): ext.synchronize()
            issues, yielded = method_effects(site, method, target, None, current)
            for issue in issues:
                self._report(site.node, issue)
            return yielded
        return None

    def forwarding(self, target: Value) -> Value:
        """``getattr(target, name)`` with a name not spelt: in a ``__getattr__``, the
        delegation to ``target`` (:class:`.values.Forward`); elsewhere unknown."""
        info = self._function
        if info is None or info.name != "__getattr__" or target is None:
            return None
        return Forward(target)

    def delegate(self, receiver: Instance, name: str) -> Value:
        """What ``receiver.name`` is read from when its class lacks ``name`` and defines a
        ``__getattr__`` that delegates: the held object, as a "may"."""
        getter = receiver.cls.method("__getattr__")
        if getter is None or not isinstance(getter.returns, Forward):
            return None
        if self.learning:
            self._applied.append((getter.summary, getter.summary.version))
        site = CallSite(None, "__getattr__", [Arg(Const(name), None)])  # type: ignore[arg-type]
        binding = sm.bind_arguments(getter, site, Arg(receiver, None))
        target = sm.substitute(getter.returns.target, binding)
        return target.weakened() if isinstance(target, ExtStream) else target

    @staticmethod
    def _replaced(value: Value, site: CallSite) -> Value:
        """``dataclasses.replace(obj, **changes)`` / ``obj._replace(**changes)``: the same
        class and attributes, those named changed (all unknown after a ``**`` spread)."""
        if not isinstance(value, Instance):
            return None
        if site.double_star or (site.star_at is not None):
            return Instance(value.cls)
        for name, arg in site.keywords.items():
            value = value.with_field(name, arg.value)
        return value

    def method_run(
        self, node: cst.FunctionDef, cls: ClassInfo | None
    ) -> tuple[FunctionInfo, object]:
        """The function a deferred body runs as (a subclass's view, or the function
        itself) and the key of its scope (a view's locals are its own)."""
        view = self._views.get((node, id(cls))) if cls is not None else None
        if view is not None:
            return view, (node, id(cls))
        return self._functions[node], node

    def make_views(self, cls: ClassInfo, own_names: set[str]) -> None:
        """Run again, for ``cls``, each method of a base defined in this file whose body
        reads what ``cls`` (or a class before that base in its MRO) defines differently.
        ``own_names``: what the class body binds (methods and class attributes)."""
        mro = cls.mro()
        if len(mro) < 2:
            return
        changed: set[str] = set(own_names)
        for cls_name in own_names:
            changed.update(self._writes_of(cls, cls_name))
        for position in range(1, len(mro)):
            base = mro[position]
            node = self._class_nodes.get(id(base))
            if node is None:  # another module's class: its bodies are not here
                continue
            after = mro[position + 1 :]
            super_differs = [id(k) for k in after] != [id(k) for k in base.mro()[1:]]
            methods = self._method_nodes(node)
            pending = dict(methods)
            if not any(k is base for k in cls.inits_run()):
                # Its __init__ never runs for cls's instances (cls's own does not chain).
                pending.pop("__init__", None)
            grew = True
            while grew:
                grew = False
                for name, (fnode, info) in list(pending.items()):
                    uses = self._self_uses(fnode)
                    if uses.reads & changed or (uses.calls_super and super_differs):
                        del pending[name]
                        changed.add(name)
                        changed.update(uses.writes)
                        self._view_of(cls, base, fnode, info)
                        grew = True

    def _view_of(
        self, cls: ClassInfo, base: ClassInfo, node: cst.FunctionDef, original: FunctionInfo
    ) -> None:
        view = self._views.get((node, id(cls)))
        if view is None:
            view = self._views[(node, id(cls))] = FunctionInfo(original.name)
        if self.learning:
            self._refresh_view(cls, original, view)
        scope = self._scopes.get(self._class_nodes[id(base)])
        if scope is not None:
            self._deferred.append((node, scope, cls))

    @staticmethod
    def _refresh_view(cls: ClassInfo, original: FunctionInfo, view: FunctionInfo) -> None:
        """What the ``def`` says of the function (it ran again this pass), for the view."""
        view.params = original.params
        view.decorators = original.decorators
        view.defaults = original.defaults
        view.is_property = original.is_property
        view.predicate = original.predicate
        if original.returns_known:
            view.returns, view.returns_known = original.returns, True
        cls.views[original] = view

    def _writes_of(self, cls: ClassInfo, name: str) -> frozenset[str]:
        node = self._class_nodes.get(id(cls))
        found = self._method_nodes(node).get(name) if node is not None else None
        return self._self_uses(found[0]).writes if found is not None else frozenset()

    def _method_nodes(self, node: cst.ClassDef) -> dict[str, tuple[cst.FunctionDef, FunctionInfo]]:
        """The methods a class body defines, by name (the last ``def`` of a name wins)."""
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        found: dict[str, tuple[cst.FunctionDef, FunctionInfo]] = {}
        for statement in body:
            if isinstance(statement, cst.FunctionDef):
                info = self._functions.get(statement)
                if info is not None:
                    found[statement.name.value] = (statement, info)
        return found

    def _self_uses(self, node: cst.FunctionDef) -> SelfUses:
        known = self._self_uses_cache.get(node)
        if known is None:
            known = self._self_uses_cache[node] = self_uses(node)
        return known


def _tail(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def self_uses(function: cst.FunctionDef) -> SelfUses:
    """The attributes ``function`` reads and sets on its first parameter (``self``, or
    ``cls``), nested functions included (closures see it), and whether it calls
    ``super()``."""
    params = function.params
    ordered = (*params.posonly_params, *params.params)
    if not ordered:
        return SelfUses(frozenset(), frozenset(), False)
    this = ordered[0].name.value
    reads: set[str] = set()
    writes: set[str] = set()
    stored: set[int] = set()  # ``self.x`` nodes only assigned to, never read
    calls_super = False
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is cst.Attribute:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is cst.Name and value.value == this and id(node) not in stored:
                reads.add(node.attr.value)  # type: ignore[attr-defined]
        elif kind in (cst.AssignTarget, cst.AnnAssign):
            _targets(node.target, this, writes, stored)  # type: ignore[attr-defined]
        elif kind is cst.AugAssign:  # ``self.x += y`` reads it too
            _targets(node.target, this, writes, set())  # type: ignore[attr-defined]
        elif kind is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            calls_super = calls_super or (type(func) is cst.Name and func.value == "super")
        elif kind is cst.ClassDef:
            continue
        pending.extend(children(node))
    return SelfUses(frozenset(reads), frozenset(writes), calls_super)


def _targets(target: cst.CSTNode, this: str, writes: set[str], stored: set[int]) -> None:
    if isinstance(target, cst.Attribute):
        if isinstance(target.value, cst.Name) and target.value.value == this:
            writes.add(target.attr.value)
            stored.add(id(target))
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            _targets(element.value, this, writes, stored)
    elif isinstance(target, cst.StarredElement):
        _targets(target.value, this, writes, stored)


__all__ = ["Objects", "SelfUses", "self_uses"]
