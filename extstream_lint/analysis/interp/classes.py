"""Classes and attributes: what a class body builds and what ``obj.name`` reads.

A ``class`` statement makes a :class:`~..values.ClassInfo`: its bases, its methods (run
later, like functions), its class attributes, and for a dataclass, ``NamedTuple`` or attrs
class the fields its generated ``__init__`` takes and their defaults. Reading an attribute
(mypy's checkmember.py) looks in a project module's exports, an instance's own fields, its
class (a property's getter, a bound method) and ``super()``. ``self.x = ...`` is written
through :meth:`.core.Core.bind_target`.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef, Ref
from ..abstract.choices import OneOf
from ..abstract.members import member_of
from ..abstract.state import State
from ..abstract.values import (
    Bound,
    ClassInfo,
    FunctionInfo,
    Instance,
    Module,
    Seq,
    Value,
    join_all,
)
from ..semantics.sites import Arg
from ..source.syntax import dotted_name, tail_name
from . import summaries as sm
from .binding import bind_arguments
from .core import Scope
from .datamodel import TypeSuper, is_metaclass_of
from .objects import RECORD_INIT


class Classes:
    """Class bodies, record fields, and attributes read from modules, classes and instances."""

    def exec_ClassDef(self, node: cst.ClassDef, state: State, scope: Scope) -> State:
        decorators = [self.eval(d.decorator, state, scope) for d in node.decorators]
        for arg in (*node.bases, *node.keywords):
            self.eval(arg.value, state, scope)
        info = self._classes.get(node)
        if info is None:
            info = self._classes[node] = ClassInfo(node.name.value)
            info.init_chains = self._bodies.init_chains(node)
            self._own_classes.add(id(info))
            self._class_nodes[id(info)] = node
        if self.learning:
            with self._silenced():
                bases = [self.eval(arg.value, state, scope) for arg in node.bases]
            info.bases = [b for b in bases if isinstance(b, ClassInfo) and b is not info]
            info.library = tuple(b.qualname for b in bases if isinstance(b, Ref))
            with self._silenced():
                meta = [self.eval(k.value, state, scope) for k in node.keywords if _is_meta(k)]
            info.meta = next((m for m in meta if isinstance(m, ClassInfo)), None)
            if _is_record_class(node) or self.transformed(node, info, decorators, meta):
                inherited = [f for base in info.bases for f in base.fields]
                own = [f for f in _annotated_fields(node) if f not in inherited]
                info.fields = [*inherited, *own]
        inner = self._scope(node, "class", scope)
        inner.cls = info
        class_state = State({}, state.current)
        outer = self._deferred
        self._deferred = []
        self._suite(node.body, class_state, inner)
        outer.extend(self._deferred)  # methods run after the enclosing scope, like functions
        self._deferred = outer
        if info.fields and self.learning and "__init__" not in info.methods:
            info.methods["__init__"] = self._record_init(info)
        if info.fields and self.learning:
            self._learn_field_defaults(node, info, class_state, inner)
        if self.learning:
            declared = _declared_only(node)
            for name, value in class_state.env.items():
                if name in declared:  # s: T = field(init=False): no class attribute
                    continue
                if "." not in name and not isinstance(value, FunctionInfo):
                    self.learn_attr(info, name, self.enum_value(node, info, name, value))
        self.make_views(info, {name for name in class_state.env if "." not in name})
        self.class_created(node, info, state, scope)  # __init_subclass__ (datamodel.py)
        applied = list(zip(node.decorators, decorators))
        # @d over the class: Cls = d(Cls), whose body may set class attributes (calls.py)
        value = self.decorate(node, info, applied, state) if applied else info
        self.bind(node.name.value, value, state, scope)
        return state

    def _record_init(self, cls: ClassInfo) -> FunctionInfo:
        """The ``__init__`` a dataclass, ``NamedTuple`` or attrs class gets: fields in order."""
        init = self._record_inits.get(id(cls))
        if init is None:
            init = self._record_inits[id(cls)] = FunctionInfo("__init__")
            init.decorators = frozenset({RECORD_INIT})
            init.params = (("self", "pos"), *((name, "pos") for name in cls.fields))
            for index, name in enumerate(cls.fields, 1):
                init.summary.set_attr((0, (name,)), sm.symbolic(ParamRef(init, index)))
        return init

    def _learn_field_defaults(
        self, node: cst.ClassDef, cls: ClassInfo, state: State, scope: Scope
    ) -> None:
        """What the generated ``__init__`` stores for a field it is not given: the default,
        or what ``field(default_factory=f)`` / attrs' ``factory=`` / ``Factory(f)`` returns."""
        own: dict[str, Value] = {}
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        lines = [line for line in body if isinstance(line, cst.SimpleStatementLine)]
        with self._silenced():
            for small in (small for line in lines for small in line.body):
                name, value = _field_line(small)
                if name is not None and value is not None:
                    own[name] = self._field_default(value, state, scope)
        defaults: dict[str, Value] = {}
        for base in reversed(cls.mro()[1:]):
            defaults.update(self._field_defaults.get(id(base), {}))
        defaults.update(own)
        self._field_defaults[id(cls)] = defaults
        init = self._record_inits.get(id(cls))
        if init is not None:
            init.defaults = {
                index: defaults[name]
                for index, name in enumerate(cls.fields, 1)
                if defaults.get(name) is not None
            }

    def _field_default(self, value: cst.BaseExpression, state: State, scope: Scope) -> Value:
        factory: cst.BaseExpression | None = None
        if isinstance(value, cst.Call) and tail_name(value.func) in _FIELD_FUNCTIONS:
            keywords = {a.keyword.value: a.value for a in value.args if a.keyword is not None}
            factory = keywords.get("default_factory", keywords.get("factory"))
            default = keywords.get("default")
            if factory is None and default is None:
                return None
            if factory is None:
                value = default  # type: ignore[assignment]
        if isinstance(value, cst.Call) and tail_name(value.func) == "Factory" and value.args:
            factory = value.args[0].value  # attrs: x = attr.ib(default=Factory(f))
        if factory is None:
            return self.eval(value, state, scope)
        made = self.eval(factory, state, scope)
        if isinstance(made, FunctionInfo):
            self._applied.append((made.summary, made.summary.version))  # learnt later: look again
            return sm.substitute(made.returns, sm.Binding(made, {}, None))
        if isinstance(made, ClassInfo):  # field(default_factory=Placement): a fresh instance
            defaults = self._field_defaults.get(id(made), {})
            held = tuple((n, defaults[n]) for n in made.fields if defaults.get(n) is not None)
            return Instance(made, held)  # what else it holds: its class's (constants.class_flag)
        return None

    def _attribute_of(self, base: Value, name: str, text: str | None) -> Value:
        """``base.name`` for values that are not torch modules (``getattr(obj, "x")``)."""
        member = member_of(base)
        if member is not None:  # Kind.EXTERNAL.value (datamodel.py)
            return self.member_attribute(member, name, text)
        if isinstance(base, OneOf):  # one of several modules or classes: each one's
            return self.attribute_each(base, name, text)
        if isinstance(base, Module):
            # Asked again by name: the facts as they are now (a module of an import cycle
            # being summarised may have grown since this value was taken), and the provider
            # records that they were used.
            base = self._project_module(base.name) or base
            if self.facts is not None:
                self.facts.read(base.name, name)
            if name in base.exports:  # with what imported modules stored into it
                return self.global_of(base.name, name, base.exports[name])
            return self._project_module(f"{base.name}.{name}")  # a submodule
        if isinstance(base, Instance):
            if name == "__class__":
                return base.cls
            if name == "__dict__" and not base.cls.has_attr(name):  # obj.__dict__, vars(obj)
                return _namespace(tuple(base.fields))
            if name == "register":  # a singledispatch function's (flows.py)
                registrar = self.flow_attribute(base, name)
                if registrar is not None:
                    return registrar
            found, got = self.descriptor_get(base, name)
            if found:  # a descriptor on the class: its __get__ answers (datamodel.py)
                return got
            method = base.cls.method(name)
            if method is not None and not base.field(name)[0] and not base.cls.has_attr(name):
                if method.is_property:  # the getter's value, named where it was made
                    binding = bind_arguments(method, None, Arg(base, None))
                    return self.through_self(base, name, sm.substitute(method.returns, binding))
                return Bound(method, base, text)
            if method is None and not base.field(name)[0] and not base.cls.has_attr(name):
                key = (id(base.cls), name)
                target = self.delegate(base, name) if key not in self._delegating else None
                if target is not None:  # a __getattr__ that forwards (two may forward in turn)
                    self._delegating.add(key)
                    try:
                        found = self._attribute_of(target, name, None)
                    finally:
                        self._delegating.discard(key)
                    return found.weakened() if isinstance(found, ExtStream) else found
            if base.declared:  # known by a declared type: the class's guarantee only
                return self.declared_attr(base, name)
            return sm.attribute(base, name)
        if isinstance(base, ClassInfo):
            if name == "__name__" and not base.has_attr(name):
                return Const(base.name)
            if name == "__dict__" and not base.has_attr(name):  # type(obj).__dict__["m"]
                return _namespace((*base.attrs.items(), *base.methods.items()))
            return base.attr(name) or base.method(name)
        declared = self.declared_attr(base, name)  # pool.s, pool: Pool (declared.py)
        return declared if declared is not None else sm.attribute(base, name)

    def _as_seq(self, value: Value) -> Value:
        """A NamedTuple instance read by position or unpacked."""
        if isinstance(value, Instance) and value.cls.fields:
            return Seq(tuple(sm.attribute(value, name) for name in value.cls.fields))
        return value

    def _super(self, scope: Scope, state: State, node: cst.Call) -> Value:
        """``super()`` in a method: the first argument, seen from the bases of the class;
        ``super(Cls, obj)``: ``obj`` seen from the bases of ``Cls``."""
        if node.args:
            given = [self.eval(arg.value, state, scope) for arg in node.args]
            if len(given) == 2 and not any(arg.star for arg in node.args):
                cls, this = given
                if isinstance(cls, ClassInfo) and isinstance(this, Instance):
                    return Super(cls, this)
            return None
        inner: Scope | None = scope
        while inner is not None and inner.kind != "function":
            inner = inner.parent
        if inner is None or inner.parent is None or inner.parent.cls is None:
            return None
        info = inner.function
        cls = inner.parent.cls
        if info is None or not info.params:
            return None
        this = self.lookup(info.params[0][0], state, scope)
        if isinstance(this, ClassInfo) and is_metaclass_of(cls, this):
            return TypeSuper(this)  # a metaclass's method given the class (datamodel.py)
        if not isinstance(this, Instance):
            return None
        return Super(cls, this)


@dataclass(frozen=True)
class Super:
    """``super()``: methods are looked up in the bases of ``cls``, bound to ``instance``."""

    cls: ClassInfo
    instance: Instance

    def method(self, name: str) -> FunctionInfo | None:
        """The next definition after ``cls`` in the MRO of the instance's class (what
        Python's ``super()`` does: in a diamond, a sibling of ``cls``, not its base)."""
        owner = self.instance.cls
        order = owner.mro()
        start = next((i for i, k in enumerate(order) if k is self.cls), None)
        if start is None:  # not an instance of cls (a view's self is): cls's own bases
            order, start = self.cls.mro(), 0
        for base in order[start + 1 :]:
            found = base.methods.get(name)
            if found is not None:
                return owner.views.get(found, found)
        return None


_RECORD_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "s", "attrs"})


_RECORD_BASES = frozenset({"NamedTuple"})


#: ``dataclasses.field``, ``attrs.field``, ``attr.ib`` / ``attr.attrib``.
_FIELD_FUNCTIONS = frozenset({"field", "ib", "attrib"})


def _is_record_class(node: cst.ClassDef) -> bool:
    """A class whose constructor takes its annotated fields (dataclass, NamedTuple, attrs)."""
    for decorator in node.decorators:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        if (dotted_name(target) or "").rsplit(".", 1)[-1] in _RECORD_DECORATORS:
            return True
    return any(
        (dotted_name(arg.value) or "").rsplit(".", 1)[-1] in _RECORD_BASES for arg in node.bases
    )


def _annotated_fields(node: cst.ClassDef) -> list[str]:
    """The fields the generated ``__init__`` takes, in order: ``name: T`` lines without
    ``ClassVar`` ones, and attrs' ``name = attr.ib()`` lines; not those declared with
    ``field(init=False)`` (``__post_init__`` sets them)."""
    names = []
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            name, value = _field_line(small)
            if name is None or _keyword_is_false(value, "init"):
                continue
            if isinstance(small, cst.AnnAssign):
                annotation = small.annotation.annotation
                head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
                if (dotted_name(head) or "").rsplit(".", 1)[-1] in ("ClassVar", "KW_ONLY"):
                    continue
            names.append(name)
    return names


def _field_line(small: cst.BaseSmallStatement) -> tuple[str | None, cst.BaseExpression | None]:
    """A field declaration of a class body: ``name: T [= value]``, or ``name = attr.ib(...)``
    (attrs' form without an annotation); its name and value."""
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target.value, small.value
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
        and tail_name(small.value.func) in _FIELD_FUNCTIONS
    ):
        return small.targets[0].target.value, small.value
    return None, None


def _declared_only(node: cst.ClassDef) -> set[str]:
    """Record fields declared by ``field(...)`` with neither a default nor a factory: the
    class gets no attribute of that name (``__init__`` or ``__post_init__`` sets it)."""
    names = set()
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for line in body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            name, value = _field_line(small)
            if name is None or not isinstance(value, cst.Call):
                continue
            if tail_name(value.func) not in _FIELD_FUNCTIONS:
                continue
            keywords = {a.keyword.value for a in value.args if a.keyword is not None}
            if not keywords & {"default", "default_factory", "factory"}:
                names.add(name)
    return names


def _keyword_is_false(value: cst.BaseExpression | None, keyword: str) -> bool:
    """``field(..., init=False)``."""
    if not isinstance(value, cst.Call) or tail_name(value.func) not in _FIELD_FUNCTIONS:
        return False
    return any(
        arg.keyword is not None
        and arg.keyword.value == keyword
        and isinstance(arg.value, cst.Name)
        and arg.value.value == "False"
        for arg in value.args
    )


def _is_meta(keyword: cst.Arg) -> bool:
    return keyword.keyword is not None and keyword.keyword.value == "metaclass"


def _namespace(entries: tuple[tuple[object, Value], ...]) -> Seq:
    """An object's or a class's ``__dict__`` as a dict keyed by the attribute names known
    (``vars(obj)["s"]`` is ``obj.s`` as set; an unknown key reads any of them)."""
    keys = tuple((k, v) for k, v in entries if isinstance(k, str) and k.isidentifier())
    return Seq((join_all([v for _, v in keys]),), keys) if keys else Seq((), is_dict=True)
