"""The object model: what instances hold, and the library calls that make or copy them.

Constructing a class applies its ``__init__`` (found through the MRO: a subclass's view of
an inherited one, :mod:`.views`; the one a dataclass, attrs class, ``NamedTuple`` or
``dataclass_transform`` class gets) and a dataclass's ``__post_init__``. ``copy.copy``,
``copy.deepcopy``, ``dataclasses.replace`` and ``_replace`` keep attributes; the holders
``threading.local()``, ``SimpleNamespace`` and ``ContextVar`` are an instance per allocation
site; a helper built as ``Helper(self)`` holds its owner; a ``__getattr__`` returning
``getattr(held, name)`` delegates, as a "may".

Class attributes learnt from the bodies that set them, and the attributes a summary sets on
``self``, start afresh in each learning pass, as what functions return does
(:meth:`.core.Core._learn_return`): a pass that read a helper before the helper was learnt
does not dilute the attribute into a "may" forever.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, ExtStream
from ..abstract.state import State
from ..abstract.values import ClassInfo, Forward, FunctionInfo, Instance, Seq, Summary, Value, join
from ..semantics.effects import call_effects, is_external_class, method_effects
from ..semantics.sites import Arg, CallSite
from . import summaries as sm
from .binding import bind_arguments
from .core import Scope
from .datamodel import given_fields

#: The decorator name a generated ``__init__`` (dataclass, attrs, ``NamedTuple``,
#: ``dataclass_transform``) carries: constructing the class then runs its post-init hook.
RECORD_INIT = "<record __init__>"

#: Library calls that make classes, answered by :meth:`Objects.object_call`: the functional
#: ``namedtuple``/``NamedTuple`` is the class a ``class P(NamedTuple)`` body makes (class
#: creation, not a value flow, so not a row of the flow-model table). The
#: holders ``threading.local()`` and ``SimpleNamespace`` (rows of the flow-model table,
#: :mod:`.flows`, which calls :meth:`Objects.object_call` for them) are an instance per
#: allocation site, of a class of that site: what one of them holds is what was stored in it.
OBJECT_CALLS = frozenset(
    {
        "collections.namedtuple",
        "typing.NamedTuple",
    }
)


#: The class of ``dataclasses.replace(p, ...)`` of a parameter ``p`` until a call binds it.
_REPLACED = ClassInfo("dataclasses.replace")


class Objects:
    """Class attributes learnt per pass, and the views of inherited methods."""

    def learn_attr(self, cls: ClassInfo, name: str, value: Value) -> None:
        """A class attribute (or one set through ``self``) learnt in this pass: the first
        write of a pass replaces what the previous pass left, the others join it. Classes
        of other modules are only ever joined (their own passes are over). A copy learnt
        with literal arguments (:mod:`.constants`) adds nothing: the generic body's writes
        already join every path, and a copy's narrower value must not stand for the class."""
        if self._function in self._copy_of:
            return
        attrs = cls.attrs
        key = (id(cls), name)
        if key in self._fed_attrs and type(value) is ExtStream and value.must:
            value = value.weakened()  # a caller's argument is stored there too: "may be"
        if self._attr_passes.get(key) != self._passes and id(cls) in self._own_classes:
            self._attr_passes[key] = self._passes
            attrs[name] = self.effect_on(cls, name, value)  # registries.py
            return
        attrs[name] = join(attrs[name], value) if name in attrs else value

    def note_fed_attr(self, cls: ClassInfo, name: str) -> None:
        """``self.name = param`` in a method of ``cls``: a caller's argument is stored under
        ``name``, so what the class's own code stores there is no guarantee for every
        instance (a classmethod making ``cls(ext)`` beside ``Cls(managed)``): the class-level
        value is a "may be" from now on, and findings on it are placed at the callers."""
        key = (id(cls), name)
        if key in self._fed_attrs:
            return
        self._fed_attrs.add(key)
        held = cls.attrs.get(name)
        if type(held) is ExtStream and held.must:
            cls.attrs[name] = held.weakened()

    def learn_set_attr(
        self, summary: Summary, key: tuple[int, tuple[str, ...]], value: Value
    ) -> None:
        """``self.x = v`` in the function being summarised: per pass, like
        :meth:`learn_attr` (a first pass that called a helper not learnt yet saw nothing).
        Whether this changed the summary is decided once the body is done, against what
        the previous pass left (:meth:`.calls.Calls._run_function`): a replace then a join
        within one pass is no change if it ends where the last pass did."""
        seen = (id(summary), key)
        attrs = summary.sets_attrs
        if self._set_attr_passes.get(seen) == self._passes and key in attrs:
            attrs[key] = join(attrs[key], value)
        else:
            self._set_attr_passes[seen] = self._passes
            attrs[key] = value

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
        stream = self._stream_subclass(cls, site, current)
        if stream is not None:
            return stream
        if site.positional and len(site.positional) == 1:  # Kind("external"): a member
            found, member = self.enum_lookup(cls, site.positional[0].value, "value")
            if found:
                return member
        done, made = self.made_by_class(cls, node, site, state, current)  # datamodel.py
        if done:  # a metaclass's __call__, or a __new__ returning another object
            return made
        instance = made if isinstance(made, Instance) else Instance(cls)
        init = cls.method("__init__")
        if init is None:
            self.guarantee_fields(instance)
            return instance
        made = self._run_on(init, instance, node, site, state, current, cls.name)
        if RECORD_INIT in init.decorators:
            post = cls.method("__post_init__") or cls.method("__attrs_post_init__")
            if post is not None:
                made = self._run_on(post, made, node, None, state, current, cls.name)
        if self.learning:
            self._hold_self(cls, made)
        self.guarantee_fields(made)  # cls(make()) in the class's own code (guarantees.py)
        return made

    def _stream_subclass(self, cls: ClassInfo, site: CallSite, current: ExtStream | None) -> Value:
        """An instance of a class derived from a library class is what that class makes:
        ``class S(ExternalStream)`` makes external streams, whatever ``__init__`` it adds;
        with no ``__init__`` of the project's in the MRO the call is the library class's
        own (``S(ptr)``, ``class T(torch.npu.Stream)`` given ``stream_ptr=``), checked as
        such. ``None``: not derived from a library class that makes a stream."""
        order = cls.mro()
        library = next((name for klass in order for name in klass.library), None)
        if library is None:
            return None
        if any("__init__" in klass.methods for klass in order):
            return ExtStream(True, "created", site.node) if is_external_class(library) else None
        outcome = call_effects(site, library, current, self._default_capture)
        for issue in outcome.issues:
            self._report(site.node, issue)
        return outcome.value if isinstance(outcome.value, ExtStream) else None

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
        binding = bind_arguments(method, site, Arg(instance, None))
        binding.current = current
        special = self.specialised(method, binding)  # Cls(True): learnt with the literal
        if special is not None:
            method = binding.info = special
        if method.summary.calls:  # self.make = make; self.make(h): held when it is called
            binding.args[0] = Arg(given_fields(method, binding, instance), None)
        self._apply(method, node, binding, state, name)
        fields = dict(instance.fields)
        own = [
            (path[0], value)
            for (index, path), value in method.summary.sets_attrs.items()
            if index == 0 and len(path) == 1
        ]
        for name, value in own:
            fields[name] = sm.substitute(value, binding)
        made = Instance(instance.cls, tuple(fields.items())) if fields else instance
        if method.summary.overridable:  # self.s = self._make(h), _make overridden
            made = self.apply_overrides(method, made, node, binding, state)
        if any(_holds_self(value, method) for _, value in own):
            # ``self.helper = Helper(self)``: the helper holds the object as the method
            # leaves it (its other fields set), not as it was when the method began.
            binding.args[0] = Arg(made, None)
            for name, value in own:
                fields[name] = sm.substitute(value, binding)
            made = Instance(instance.cls, tuple(fields.items()))
        return made

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
        cls = self._site_classes.get(site.node)
        if cls is None:
            cls = self._site_classes[site.node] = ClassInfo(qualname)
            self._own_classes.add(id(cls))
            if qualname in ("collections.namedtuple", "typing.NamedTuple"):
                cls.name = _record_name(site.node) or cls.name
                cls.fields = _record_fields(site.node)
        if qualname in ("collections.namedtuple", "typing.NamedTuple"):
            if cls.fields and self.learning:  # the class itself: Pair(a, b) takes its fields
                cls.methods["__init__"] = self._record_init(cls)
            return cls
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
        """A method the class does not define: a ``NamedTuple``'s ``_replace``,
        ``__class__``, one a ``__getattr__`` delegates, a mapping's mixin (mappings.py)."""
        cls = receiver.cls
        if method == "_replace" and cls.fields:
            return self.replaced(receiver, site)
        if method == "_asdict" and cls.fields:  # a dict keyed by the field names
            return self.record_dict(receiver)
        if method == "__class__":  # self.__class__(...): a new instance of the same class
            return self.construct(cls, site.node, site, state, current)
        target = self.delegate(receiver, method)
        if isinstance(target, ExtStream):  # Proxy(ext).synchronize(): ext.synchronize()
            issues, yielded = method_effects(site, method, target, None, current)
            for issue in issues:
                self._report(site.node, issue)
            return yielded
        return self.mapping_method(receiver, method, site, state)  # type: ignore[attr-defined]

    def dunder_element(self, value: Instance) -> Value:
        """``for x in obj``: an element of what ``type(obj).__iter__`` yields (a generator)
        or returns (``iter(self.items)``), found through the MRO; ``None`` without one."""
        method = value.cls.method("__iter__")
        if method is None:
            return None
        if self.learning:
            self._applied.append((method.summary, method.summary.version))
        binding = bind_arguments(method, None, Arg(value, None))
        if method.summary.yield_seen:
            return sm.substitute(method.summary.yielded, binding)
        returned = sm.substitute(method.returns, binding)
        if isinstance(returned, Instance) and returned.cls is value.cls:
            return None  # ``return self``: its ``__next__`` is not followed
        return sm.element(returned)

    def set_attribute(self, node: cst.Call, site: CallSite, state: State, scope: Scope) -> Value:
        """``setattr(obj, "name", v)`` with a literal name is the assignment ``obj.name = v``
        (bound as that target, :meth:`.core.Core.bind_target`); any other name is unknown."""
        args = node.args
        if len(args) != 3 or len(site.positional) != 3 or any(a.star for a in args):
            return None
        name = site.positional[1].value
        literal = name.value if isinstance(name, Const) else None  # a literal, or a copy's
        owner = args[0].value
        if isinstance(literal, str) and literal.isidentifier() and _plain(owner):
            target = cst.Attribute(value=owner, attr=cst.Name(literal))
            self.bind_target(target, site.positional[2].value, state, scope, node)
        return Const(None)

    @staticmethod
    def has_attribute(value: Value, name: str) -> bool:
        """Whether ``value.name`` surely exists (``getattr(obj, "x", default)`` then never
        gives the default): a field the instance holds, or one its class has."""
        if isinstance(value, Instance):
            return value.field(name)[0] or value.cls.has_attr(name)
        return isinstance(value, ClassInfo) and value.has_attr(name)

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
        target = getter.returns.target
        if isinstance(target, Instance) and target.cls is receiver.cls:
            return None  # getattr(self, other_name): the class answers, or it recurses
        if self.learning:
            self._applied.append((getter.summary, getter.summary.version))
        site = CallSite(None, "__getattr__", [Arg(Const(name), None)])  # type: ignore[arg-type]
        binding = bind_arguments(getter, site, Arg(receiver, None))
        target = sm.substitute(getter.returns.target, binding)
        return target.weakened() if isinstance(target, ExtStream) else target

    @staticmethod
    def replaced(value: Value, site: CallSite) -> Value:
        """``dataclasses.replace(obj, **changes)`` / ``obj._replace(**changes)``: the same
        class and attributes, those named changed (all unknown after a ``**`` spread). Of a
        parameter (``replace(cfg, max_batch=n)`` in a helper): the caller's object with
        those attributes changed, once the call binds it (:func:`.summaries.substitute`)."""
        spread = site.double_star or site.star_at is not None
        if isinstance(value, ExtStream) and value.param is not None and not spread:
            fields = tuple((name, arg.value) for name, arg in site.keywords.items())
            return Instance(_REPLACED, fields, value.param)
        if not isinstance(value, Instance):
            return None
        if site.double_star or (site.star_at is not None):
            return Instance(value.cls)
        for name, arg in site.keywords.items():
            value = value.with_field(name, arg.value)
        return value


def _record_name(node: cst.Call) -> str | None:
    """The class name a functional ``namedtuple("Pair", ...)`` spells."""
    first = node.args[0].value if node.args and node.args[0].keyword is None else None
    name = first.evaluated_value if isinstance(first, cst.SimpleString) else None
    return name if isinstance(name, str) else None


def _record_fields(node: cst.Call) -> list[str]:
    """The fields of ``namedtuple("P", "a b")`` / ``namedtuple("P", ["a", "b"])`` /
    ``NamedTuple("P", [("a", T), ("b", T)])``, when spelt as literals; else none."""
    spelt = [a.value for a in node.args[1:2] if a.keyword is None and not a.star]
    spelt += [a.value for a in node.args if a.keyword and a.keyword.value in _FIELD_KEYWORDS]
    if len(spelt) != 1:
        return []
    given = spelt[0]
    if isinstance(given, cst.SimpleString):
        text = given.evaluated_value
        return text.replace(",", " ").split() if isinstance(text, str) else []
    if not isinstance(given, (cst.List, cst.Tuple)):
        return []
    names = []
    for element in given.elements:
        item = element.value
        if isinstance(item, cst.Tuple) and item.elements:  # ("a", T) of typing.NamedTuple
            item = item.elements[0].value
        name = item.evaluated_value if isinstance(item, cst.SimpleString) else None
        if not isinstance(name, str) or not name.isidentifier():
            return []
        names.append(name)
    return names


#: The keyword a functional named tuple's fields may be given by.
_FIELD_KEYWORDS = frozenset({"field_names", "fields"})


def _holds_self(value: Value, method: FunctionInfo, depth: int = 0) -> bool:
    """Whether a value a method stores holds the method's own ``self`` (``Helper(self)``,
    ``[self]``), a few levels down at most."""
    if isinstance(value, Instance):
        ref = value.param
        if ref is not None:
            return ref.owner is method and ref.index == 0 and not ref.path
        return depth < 3 and any(_holds_self(v, method, depth + 1) for _, v in value.fields)
    if isinstance(value, Seq) and depth < 3:
        return any(_holds_self(v, method, depth + 1) for v in value.items)
    return False


def _plain(node: cst.BaseExpression) -> bool:
    """A name or a dotted path of names: evaluating it again has no effect."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _tail(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


__all__ = ["OBJECT_CALLS", "RECORD_INIT", "Objects"]
