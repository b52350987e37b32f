"""Python's data model beyond plain classes (language reference 3.3): enum members,
descriptors, ``__new__``, metaclasses and ``__init_subclass__``.

An ``enum.Enum`` class body's names become its members when the class is created (not its
functions, descriptors, ``_sunder_``/``__dunder__`` names or ``nonmember(...)``; a function
given as ``member(...)`` is one): each is the literal of :mod:`..abstract.members`, so
``Kind.EXTERNAL``, ``Kind["EXTERNAL"]`` and ``Kind("external")`` are the same member, a test
``kind is Kind.EXTERNAL`` decides its branch, and a function given a member is learnt with
it like a ``True`` flag. ``member.value`` is what the body assigned, ``member.name`` its
name; a method called on a member is bound to it, and what an enum's ``__init__`` sets on
``self`` from the value (``EXTERNAL = ("ext", factory)``) is read from the member.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.callables import Closure
from ..abstract.choices import OneOf
from ..abstract.members import ENUM_BASES, Member, member_of
from ..abstract.state import State
from ..abstract.values import (
    Bound,
    ClassInfo,
    FunctionInfo,
    Instance,
    Partial,
    Seq,
    Value,
    join,
    join_all,
)
from ..semantics.flowmodels import METHOD_DISPATCHER
from ..semantics.hazards import computed
from ..semantics.sites import Arg, CallSite
from ..source.syntax import tail_name
from . import summaries as sm
from .binding import bind_arguments
from .constants import new_copy


def enum_mixin(cls: ClassInfo) -> str | None:
    """The mixed-in type of an enum class (:data:`..members.ENUM_BASES`), ``None`` if it is
    not one."""
    for klass in cls.mro():
        for name in klass.library:
            if name in ENUM_BASES:
                return ENUM_BASES[name]
    return None


def metaclass_of(cls: ClassInfo) -> ClassInfo | None:
    """The project metaclass of ``cls``: its own, or the first of its bases'."""
    for klass in cls.mro():
        if klass.meta is not None:
            return klass.meta
    return None


def is_metaclass_of(meta: ClassInfo, cls: ClassInfo) -> bool:
    """Whether ``meta`` is ``cls``'s metaclass or a base of it."""
    found = metaclass_of(cls)
    return found is not None and meta in found.mro()


@dataclass(frozen=True)
class TypeSuper:
    """``super()`` in a method of a metaclass, given the class ``cls``: ``type``'s methods
    (``super().__call__(*args)`` makes an instance of ``cls`` as a plain class call does:
    ``__new__``, then ``__init__``, language reference 3.3.1)."""

    cls: ClassInfo


class DataModel:
    """Enum members, descriptors, ``__new__``, metaclasses and ``__init_subclass__``."""

    def for_class(self, info: FunctionInfo, cls: ClassInfo) -> FunctionInfo:
        """``info`` (a metaclass's ``__call__``, a ``__new__``) learnt with its first
        parameter the class ``cls`` itself, so that ``cls.make(h)`` and ``cls._cache`` in its
        body are that class's; one copy per function, class and pass, as for the literal
        copies of :mod:`.constants` (bounded the same way). ``info`` as summarised when it is
        not defined in this module or the copies are spent."""
        return self.own_copy(info, {0: cls}, ("<class>", id(cls)))

    def own_copy(
        self, info: FunctionInfo, fixed: dict[int, Value], key: tuple[object, ...]
    ) -> FunctionInfo:
        """``info`` learnt with the parameters ``fixed`` (once per ``key`` and pass, bounded
        as every copy is: :func:`.constants.new_copy`), or ``info`` itself when it is another
        module's or the pass's copies are spent. The one way a hook Python calls with known
        arguments (a metaclass's ``__call__``, ``__set__``, ``__set_name__``) is learnt."""
        where = self._definitions.get(info)
        made = new_copy(self._specialised, (info, self._passes, key), info) if where else None
        if made is None:
            return info
        special, new = made
        if new:
            node, scope, owner = where
            self.learn_copy(node, scope, owner, special, fixed)  # type: ignore[attr-defined]
        return special

    def made_by_class(
        self,
        cls: ClassInfo,
        node: cst.Call,
        site: CallSite,
        state: State,
        current: ExtStream | None,
    ) -> tuple[bool, Value]:
        """``Cls(...)`` answered by ``type(Cls).__call__`` (a metaclass's) or by
        ``Cls.__new__`` returning something that is not a fresh instance of ``Cls`` (then
        ``__init__`` does not run): ``(True, value)``; ``(False, instance)`` to go on with
        the instance ``__new__`` made (``None``: a plain one)."""
        meta = metaclass_of(cls)
        call = meta.method("__call__") if meta is not None else None
        if call is not None and id(cls) not in self.__dict__.get("_type_calls", ()):
            special = self.for_class(call, cls)
            made = self._call_function(special, node, site, Arg(cls, None), state, current)
            if made is not None and not (isinstance(made, Instance) and made.cls is cls):
                return True, made
            if isinstance(made, Instance) and made.param is None and made.fields:
                return True, made  # super().__call__ ran __init__; the metaclass set more
        new = cls.method("__new__")
        if new is None:
            return False, None
        special = self.for_class(new, cls)
        made = self._call_function(special, node, site, Arg(cls, None), state, current)
        if isinstance(made, Instance) and made.param is None and cls in made.cls.mro():
            return False, made  # an object of the class (a subclass's too): __init__ runs
        return made is not None, made

    def class_created(
        self, node: cst.ClassDef, cls: ClassInfo, state: State, scope: object
    ) -> None:
        """After a ``class`` statement: the first base's ``__init_subclass__`` with the
        class and its keywords (``class P(Plugin, key="x")``), for what it sets on ``cls``."""
        self.descriptors_named(node, cls)  # __set_name__ (attributes.py)
        if not self.learning:
            return
        meta = metaclass_of(cls)
        if meta is not None:  # type(cls).__init__(cls, name, bases, namespace)
            keys = tuple((k, v) for k, v in cls.attrs.items() if isinstance(k, str))
            namespace = Seq((), keys, is_dict=not keys)
            self.run_metaclass_new(cls, meta, namespace, state)
            self.run_metaclass_init(node, cls, meta, namespace, state)
            call = meta.method("__call__")
            if call is not None:  # runs at every Cls(...): what it sets is the class's
                self.for_class(call, cls)
        if not cls.bases:
            return
        hook = next(
            (
                k.methods["__init_subclass__"]
                for k in cls.mro()[1:]
                if "__init_subclass__" in k.methods
            ),
            None,
        )
        if hook is None:
            return
        keywords = {}
        with self._silenced():
            for arg in node.keywords:
                if arg.keyword is not None and arg.keyword.value != "metaclass":
                    keywords[arg.keyword.value] = Arg(self.eval(arg.value, state, scope), None)
        site = CallSite(node, "__init_subclass__", [], keywords)  # type: ignore[arg-type]
        with self._silenced():
            self._call_function(hook, node, site, Arg(cls, None), state, None)

    def record_made(self, cls: ClassInfo, site: CallSite) -> CallSite:
        """``Record._make(iterable)``: the call ``Record(*iterable)``, the iterable's
        elements given to the fields in order when its length is known."""
        given = site.positional[0].value if len(site.positional) == 1 else None
        if isinstance(given, Seq) and not given.keys and not given.is_dict:
            items = [Arg(item, None) for item in given.items]
            if len(items) == len(cls.fields):
                return CallSite(site.node, site.callee_text, items)
        return CallSite(site.node, site.callee_text, [])

    @staticmethod
    def record_dict(record: Instance) -> Value:
        """``record._asdict()``: a dict keyed by the field names, in order."""
        keys = tuple((name, sm.attribute(record, name)) for name in record.cls.fields)
        return Seq((join_all([v for _, v in keys]),), keys)

    def descriptor_get(
        self,
        obj: Instance,
        name: str,
        node: cst.CSTNode | None = None,
        state: State | None = None,
    ) -> tuple[bool, Value]:
        """``obj.name`` where the class attribute ``name`` is a descriptor: what its
        ``__get__(obj, type(obj))`` returns. A data descriptor (one with ``__set__``) wins
        over the instance's own attribute, a non-data one only answers when there is none
        (``functools.cached_property`` stores into the instance). ``(False, None)`` when the
        attribute is no descriptor. With the attribute's ``node`` and ``state`` the getter
        is called there (its calls of what the descriptor holds are made, its refusals
        reported), else its summary is read (``getattr(obj, "name")``)."""
        descriptor = obj.cls.attr(name)
        if not isinstance(descriptor, Instance):
            return False, None
        getter = descriptor.cls.method("__get__")
        if getter is None:
            return False, None
        if obj.field(name)[0] and descriptor.cls.method("__set__") is None:
            return False, None
        site = CallSite(node, "__get__", [Arg(obj, None), Arg(obj.cls, None)])  # type: ignore[arg-type]
        if node is not None and state is not None:
            current = self._current(state)
            return True, self._call_function(
                getter, node, site, Arg(descriptor, None), state, current
            )
        if self.learning:
            self._applied.append((getter.summary, getter.summary.version))
        return True, sm.substitute(
            getter.returns, bind_arguments(getter, site, Arg(descriptor, None))
        )

    def through_self(self, base: Instance, name: str, got: Value) -> Value:
        """``self.name`` read in a method where ``name`` is a property or a data descriptor:
        what its getter gives, or what the caller's object holds under ``name`` (a method
        assigning ``self.name = s`` is summarised as setting that attribute, so a caller that
        ran it holds ``s`` there, whatever the setter stores it under)."""
        ref = base.param
        if ref is None or ref.owner is not self._function or len(ref.path) >= 4:
            return got
        if got is not None and not (isinstance(got, ExtStream) and got.param is not None):
            return got  # the getter's own value (a stream the class makes): it answers
        own = sm.symbolic(ref.child(name))
        if got is None or sm.kept_call(got):
            # a getter returning a call on self (receivers.py): what it returns for the
            # caller's object, evaluated there (the getter runs on the receiver)
            return own
        return join(got, own)

    def enum_value(self, node: cst.ClassDef, cls: ClassInfo, name: str, value: Value) -> Value:
        """What the class attribute ``name`` of the class just created holds: a member when
        ``cls`` is an enum class and the name is one of its members, else ``value``."""
        mixin = enum_mixin(cls)
        if mixin is None or name.startswith("_"):
            return value
        marked = _marks(node).get(name)
        if marked == "nonmember":
            return value
        if marked != "member" and isinstance(value, (FunctionInfo, ClassInfo, Bound)):
            return value  # a function in an enum body is a method, a class a nested class
        if marked != "member" and isinstance(value, Instance) and value.cls.method("__get__"):
            return value  # a descriptor
        return Const(Member(cls, name, value, mixin))

    def member_attribute(self, member: Member, name: str, text: str | None) -> Value:
        """``member.name``: its value, its name, a method bound to it, what the enum's
        ``__init__`` set on it from its value, or a class attribute."""
        if name in ("value", "_value_"):
            return member.value  # type: ignore[return-value]
        if name in ("name", "_name_"):
            return Const(member.name)
        cls: ClassInfo = member.cls  # type: ignore[assignment]
        if name == "__class__":
            return cls
        method = cls.method(name)
        receiver = Const(member)
        if method is not None:
            if method.is_property:
                return sm.substitute(
                    method.returns, bind_arguments(method, None, Arg(receiver, None))
                )
            return Bound(method, receiver, text)
        init = cls.method("__init__")
        if init is not None and (0, (name,)) in init.summary.sets_attrs:
            if self.learning:
                self._applied.append((init.summary, init.summary.version))
            given = member.value
            items = given.items if isinstance(given, Seq) and not given.keys else (given,)
            site = CallSite(None, "__init__", [Arg(item, None) for item in items])  # type: ignore[arg-type]
            binding = bind_arguments(init, site, Arg(receiver, None))
            return sm.substitute(init.summary.sets_attrs[(0, (name,))], binding)
        return cls.attr(name)

    def enum_lookup(self, cls: ClassInfo, key: Value, by: str) -> tuple[bool, Value]:
        """``Cls["NAME"]`` (``by="name"``) or ``Cls(value)`` (``by="value"``) on an enum
        class: ``(True, member)`` when one member matches, ``(True, None)`` when the class is
        an enum but the key is not known; ``(False, None)`` for any other class."""
        if enum_mixin(cls) is None:
            return False, None
        if member_of(key) is not None and by == "value":
            return True, key  # Kind(Kind.EXTERNAL) is Kind.EXTERNAL
        if not isinstance(key, Const) or key.value in (None, ""):
            return True, None
        for klass in cls.mro():
            for value in klass.attrs.values():
                member = member_of(value)
                if member is None or member.cls is not cls:
                    continue
                if by == "name" and member.name == key.value:
                    return True, value
                if by == "value" and member.value == key:
                    return True, value
        return True, None

    def member_callee(
        self, receiver: Const, method: str, text: str | None
    ) -> tuple[Value, str | None, Arg | None]:
        """``member.method(...)``: the enum class's method bound to the member; else
        ``member.value(h)``: what the member holds, called as it is (no method)."""
        member = member_of(receiver)
        if member is None:
            return None, method, None
        found = member.cls.method(method)  # type: ignore[attr-defined]
        if found is not None:
            return found, method, Arg(receiver, text)
        return self.member_attribute(member, method, None), None, None

    def instance_callee(
        self, obj: Instance, method: str, text: str | None
    ) -> tuple[Value, str | None, Arg | None]:
        """``obj.m(...)``: its own attribute, else its class's attribute or method, a
        function of the class bound to ``obj``; a ``staticmethod`` (a partial), a class or
        a library callable held there is called as it is (no method of ``obj``)."""
        found, callee = obj.field(method)
        bound = None
        if not found:
            callee = obj.cls.attr(method) or obj.cls.method(method)
            if isinstance(callee, (FunctionInfo, Closure)):
                bound = Arg(obj, text)
            elif isinstance(callee, Partial) and held_callable(obj, method):
                # ``self.send = partial(send, non_blocking=flag)`` from ``__init__``'s
                # parameter: what the caller's instance holds, called there (calls.py)
                return None, method, None
        if isinstance(callee, (Partial, Ref)):  # a staticmethod, a class: not bound
            return callee, None, None
        if found and isinstance(callee, (OneOf, Bound, ClassInfo)):
            # the instance's own attribute holding a callable (one of several functions, a
            # bound method, a class): Python calls it as it is, without binding ``obj``
            return callee, None, None
        if not found and isinstance(callee, Instance) and callee.cls.name == METHOD_DISPATCHER:
            # a singledispatchmethod: its implementation is called with obj first (flows.py)
            return Partial(callee, (Arg(obj, text),), ()), None, None
        return callee, method, bound

    def class_callee(
        self, cls: ClassInfo, method: str, text: str | None
    ) -> tuple[Value, str | None, Arg | None]:
        """``Cls.m(...)``: the class's method, else its metaclass's bound to the class
        (``type(Cls).m``), else a class attribute holding a callable (a class keyword's,
        set by ``__init_subclass__``) called as it is."""
        found = cls.method(method)
        if found is not None:
            return found, method, None
        meta = metaclass_of(cls)
        found = meta.method(method) if meta is not None else None
        if found is not None:
            return found, method, Arg(cls, text)
        held = cls.attr(method)
        if held is not None:
            return held, None, None
        return None, method, None

    def exit_managers(self, node: cst.With, managers: list[Arg], state: State) -> None:
        """The block of ``with`` / ``async with`` ends: each manager's ``__exit__`` /
        ``__aexit__``, innermost first, for what it does to the values it holds (its
        refusals are reported at the statement). The current stream it restores is
        :meth:`.statements.Statements.exec_With`'s concern."""
        dunder = "__aexit__" if node.asynchronous is not None else "__exit__"
        for manager in reversed(managers):
            exit_ = manager.value.cls.method(dunder)  # type: ignore[union-attr]
            if exit_ is not None:
                binding = bind_arguments(exit_, None, manager)
                binding.current = self._current(state)
                self._apply(exit_, node, binding, state, dunder)

    def class_hook(
        self, receiver: Value, method: str | None, node: cst.Call, site: CallSite, state: State
    ) -> Value:
        """``__new__`` and ``_make`` called when nothing of the project defines them:
        ``object.__new__(cls)`` / ``super().__new__(cls)`` make a fresh instance of ``cls``;
        ``Record._make(iterable)`` is ``Record(*iterable)``; a method a torch base class
        gives it (``Fn.apply(x)`` of a ``torch.autograd.Function`` subclass) computes now
        from its arguments, as an unknown callable does. ``None`` for any other call."""
        if method == "__new__":
            first = site.positional[0].value if site.positional else None
            created = self.created_class(first)  # type.__new__ of a metaclass (registries.py)
            if created is not None:
                return created
            return Instance(first) if isinstance(first, ClassInfo) else None
        if method == "__call__" and isinstance(receiver, TypeSuper):  # type.__call__(cls)
            making: set[int] = self.__dict__.setdefault("_type_calls", set())
            if id(receiver.cls) in making:
                return None
            making.add(id(receiver.cls))
            try:
                return self.construct(receiver.cls, node, site, state, self._current(state))
            finally:
                making.discard(id(receiver.cls))
        if method == "_make" and isinstance(receiver, ClassInfo) and receiver.fields:
            made = self.record_made(receiver, site)
            return self.construct(receiver, node, made, state, self._current(state))
        if isinstance(receiver, ClassInfo) and method and _torch_based(receiver):
            operands = [arg.value for arg in (*site.positional, *site.keywords.values())]
            return computed(self._current(state), operands)  # a node if an input needs grad
        return None


def _torch_based(cls: ClassInfo) -> bool:
    """Some class of ``cls``'s MRO derives from a torch class (its methods are torch's)."""
    return any(q.startswith("torch.") for k in cls.mro() for q in k.library)


def _marks(node: cst.ClassDef) -> dict[str, str]:
    """The names a class body assigns ``member(...)`` or ``nonmember(...)``."""
    found: dict[str, str] = {}
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call):
                continue
            mark = tail_name(small.value.func)
            if mark in ("member", "nonmember"):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        found[target.target.value] = mark
    return found


def held_callable(receiver: Value, name: str) -> bool:
    """``self.make(h)`` in a method, ``make`` an attribute the instance holds (a callable
    object, a function, a class given to ``__init__``): called as what the caller's
    instance holds there, like a function-valued parameter (:mod:`.higher_order`)."""
    if not isinstance(receiver, Instance) or receiver.param is None or name.startswith("__"):
        return False  # self.__class__(...): objects.py
    if receiver.cls.method(name) is not None or receiver.cls.method("__getattr__") is not None:
        return False
    held = sm.attribute(receiver, name)
    return isinstance(held, ExtStream) and held.param is not None


def given_fields(method: FunctionInfo, binding: sm.Binding, instance: Instance) -> Instance:
    """``instance`` holding, from the start of ``method`` (an ``__init__``), the attributes
    it sets to its arguments as given (``self.make = make``), so that a call of one in the
    same body (``self.stream = self.make(h)``) calls what the caller passed."""
    fields = dict(instance.fields)
    for (index, path), value in method.summary.sets_attrs.items():
        if index == 0 and len(path) == 1 and _from_arguments(value, method, 0):
            fields.setdefault(path[0], sm.substitute(value, binding))
    return Instance(instance.cls, tuple(fields.items())) if fields else instance


def _from_arguments(value: Value, method: FunctionInfo, depth: int) -> bool:
    """An attribute's value made from the call's arguments alone: one as given, a path of
    one (``loader.dataset``), or a container of such (``iter(loader)``: its elements), so a
    method the same body calls (``self._preload()``) reads it, as Python's does."""
    if isinstance(value, Seq) and depth < 2:
        parts = [*value.items, *(v for _, v in value.keys)]
        return bool(parts) and all(_from_arguments(v, method, depth + 1) for v in parts)
    ref = value.param if isinstance(value, ExtStream) else None
    return ref is not None and ref.owner is method and ref.index > 0 and not value.also


def unbound(func: Value, node: cst.CSTNode, text: str | None) -> Value:
    """``staticmethod(f)``: ``f``, never bound to the instance it is read from. A function
    of the project is kept as a ``partial`` of nothing (the analysis binds a function read
    from a class, not a partial); anything else is not bound anyway (a class, a library
    function) or is not known (a parameter: what the caller passes)."""
    if isinstance(func, (FunctionInfo, Closure)):
        return Partial(func, (), (), node, text)
    return func
