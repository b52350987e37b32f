"""``functools.singledispatch`` functions: what ``register`` records, and which
implementation a call runs, here and in every module that imports the one that registered.

``@f.register`` (the class: the first parameter's annotation), ``@f.register(T)`` and
``f.register(T, impl)`` record ``impl`` for class ``T`` on the dispatcher ``f`` (a
``singledispatchmethod`` the same, after ``self``); ``f(x)`` runs the implementation
registered for the nearest class of ``x`` (its class's MRO; an external stream's classes),
else the base. ``f(job)`` on a parameter's value is a call the summary records
(:meth:`.higher_order.HigherOrder.record_param_call`): it dispatches where the summary is
applied, on the caller's argument, with the registrations in force there (a library module
that calls ``f`` need not import the implementations the application imports).

A registration is a side effect on the dispatcher, which may be another module's object:
``handlers.py`` registers on ``jobs.finish``, and once ``handlers`` has been imported, a call
of ``finish`` anywhere in the process runs ``handlers``'s implementation. What a module
registers at its top level (a class body's included), with what the modules it imports
registered, is a fact of its summary (:data:`REGISTRATIONS`); an import of a project module
puts that module's registrations in force here (and so in this module's summary, for its
own importers), as running it would. Nothing is run again: a registration is applied when a
call is resolved. A registration inside a function body counts in its own module only.

A summary another module holds is a copy (:mod:`..abstract.exported`), so a dispatcher is
named by the module that made it and its function's name, not by its object. A summary keeps
at most :data:`MAX_REGISTRATIONS`, so what a run keeps and compares stays linear in the
modules. A module a linted file does not import, directly or not, registers nothing for it
(its findings rest on the modules it imports alone).

A mixin of :class:`.interpreter.Interpreter`.
"""

from __future__ import annotations

from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.state import State
from ..abstract.values import ClassInfo, FunctionInfo, Instance, Module, Seq, Value
from ..semantics import flowmodels as fm
from ..semantics.sites import Arg, CallSite
from ..source.syntax import dotted_name
from .core import is_symbolic
from .higher_order import CALLABLE

__all__ = ["MAX_REGISTRATIONS", "REGISTRATIONS", "Dispatch"]

#: The module-level name a summary keeps its registrations in force under (not an
#: identifier; ``from m import *`` skips it): a :class:`.values.Seq` of
#: ``Seq((Const(dispatcher key), class, implementation))``.
REGISTRATIONS = "_<registrations>"
#: Registrations a module's summary keeps at most (those past it count in the module only).
MAX_REGISTRATIONS = 64

_BASE, _DISPATCHER, _TYPE, _KEY = "<base>", "<dispatcher>", "<type>", "<key>"
#: What a ``singledispatch`` function's ``register`` attribute is an instance of.
_REGISTRAR = "functools.singledispatch.register"
#: The classes an external stream is an instance of, most specific first (torch_npu's
#: ``ExternalStream`` derives from its ``Stream``, which derives from ``torch.Stream``).
_STREAM_CLASSES = (
    ("torch_npu.npu.ExternalStream", "torch_npu.npu.streams.ExternalStream"),
    ("torch_npu.npu.Stream", "torch_npu.npu.streams.Stream", "torch.npu.Stream"),
    ("torch.Stream",),
    ("object", "builtins.object"),
)

#: A registration: (dispatcher key, class, implementation).
_Registration = tuple[str, Value, Value]


class Dispatch:
    """``singledispatch`` dispatchers, their registrations and their calls."""

    def made_dispatcher(self, site: CallSite, name: str, base: Value) -> Value:
        """``functools.singledispatch(base)`` (or ``singledispatchmethod``) at ``site``."""
        if not isinstance(base, CALLABLE):
            return None
        own = base.name if isinstance(base, FunctionInfo) else ""
        key = f"{self.module_name or ''}:{name}:{own}"
        return Instance(self._site_class(site, name), ((_BASE, base), (_KEY, Const(key))))

    def flow_attribute(self, base: Instance, name: str) -> Value:
        """``f.register`` of a ``singledispatch`` function ``f``: a registrar for it."""
        registers = fm.BY_CALLEE.get(f"{base.cls.name}.{name}")
        if fm.BY_CALLEE.get(base.cls.name) is None or registers is None:
            return None
        if registers.kind != fm.REGISTERS:
            return None
        return Instance(self._registrar_class(), ((_DISPATCHER, base),))

    def registrar_call(self, callee: Instance, site: CallSite, state: State) -> Value:
        """``@f.register``, ``@f.register(T)`` applied: what :meth:`register` records."""
        dispatcher = callee.field(_DISPATCHER)[1]
        given = callee.field(_TYPE)
        args = [Arg(given[1], None), *site.positional] if given[0] else site.positional
        return self.register(dispatcher, args, state)

    def _registrar_class(self) -> ClassInfo:
        cls = self.__dict__.get("_flow_registrar")
        if cls is None:
            cls = self.__dict__["_flow_registrar"] = ClassInfo(_REGISTRAR)
            self._own_classes.add(id(cls))
        return cls  # type: ignore[no-any-return]

    def register(self, dispatcher: Value, args: list[Arg], state: State) -> Value:
        """``register(T, impl)``, ``register(impl)`` (``T``: its first parameter's
        annotation), ``register(T)`` (a registrar that takes ``impl`` next): ``impl`` is
        what the dispatcher calls for an argument of class ``T``."""
        if not isinstance(dispatcher, Instance) or not args:
            return None
        first = args[0].value
        if len(args) == 1 and isinstance(first, (ClassInfo, Ref)):
            return Instance(self._registrar_class(), ((_DISPATCHER, dispatcher), (_TYPE, first)))
        kind, impl = (first, args[1].value) if len(args) > 1 else (None, first)
        if not isinstance(impl, CALLABLE) or isinstance(impl, (ClassInfo, Ref)):
            return impl
        if kind is None and isinstance(impl, FunctionInfo):
            skip = 1 if dispatcher.cls.name == fm.METHOD_DISPATCHER else 0  # self
            kind = self._first_annotation(impl, state, skip)
        key = _key_of(dispatcher)
        if isinstance(kind, (ClassInfo, Ref)) and key is not None:
            self._in_force((key, kind, impl), self._function is None)
        return impl

    def _in_force(self, registration: _Registration, exported: bool) -> None:
        """A registration in force in this module from now on; ``exported``: made at the
        top level or by an imported module, so in force for this module's importers too."""
        key, _, impl = registration
        registry = self.__dict__.setdefault("_flow_registry", {})
        registry.setdefault(key, {})[id(impl)] = registration
        if not exported or not self.learning:
            return
        kept: dict[tuple[str, int], _Registration] = self.__dict__.setdefault("_flow_kept", {})
        if (key, id(impl)) in kept or len(kept) >= MAX_REGISTRATIONS:
            return
        kept[key, id(impl)] = registration
        module = self._scopes.get(self.module)
        if module is not None:
            held = tuple(Seq((Const(k), kind, f)) for k, kind, f in kept.values())
            module.summary[REGISTRATIONS] = Seq(held)

    def imported_registrations(self, module: Module, exported: bool) -> None:
        """Importing project module ``module`` ran it: what it registered (and what the
        modules it imports did) is in force here from now on (``exported``: imported at the
        top level, so for this module's importers too)."""
        facts = self.facts
        if facts is not None:
            facts.read(module.name, REGISTRATIONS)
            if not facts.holds(module.name, REGISTRATIONS):
                return  # not unpickled for nothing: most modules register nothing
        held = module.exports.get(REGISTRATIONS)
        for item in held.items if isinstance(held, Seq) else ():
            if not isinstance(item, Seq) or len(item.items) != 3:
                continue
            key, kind, impl = item.items
            if isinstance(key, Const) and isinstance(key.value, str):
                self._in_force((key.value, kind, impl), exported)

    def _first_annotation(self, impl: FunctionInfo, state: State, skip: int = 0) -> Value:
        """The class the first parameter of ``impl`` (after ``skip``: a method's ``self``)
        is annotated with (by name; in a class body, a name of the module)."""
        node = next((n for n, info in self._functions.items() if info is impl), None)
        params = [*node.params.posonly_params, *node.params.params] if node is not None else []
        annotation = params[skip].annotation if len(params) > skip else None
        parts = (dotted_name(annotation.annotation) or "").split(".") if annotation else []
        if not parts or not parts[0]:
            return None
        value = state.env.get(parts[0])
        if value is None:
            module = self._scopes.get(self.module)
            value = module.summary.get(parts[0]) if module is not None else None
        if value is None and len(parts) == 1 and parts[0] in BUILTIN_CLASSES:
            return Ref(f"builtins.{parts[0]}")  # ``obj: int``: the builtin, not shadowed
        for part in parts[1:]:
            value = Ref(f"{value.qualname}.{part}") if isinstance(value, Ref) else None
        return value

    def dispatch(
        self, dispatcher: Instance, site: CallSite, state: State, current: ExtStream | None
    ) -> Value:
        """``f(x)`` of a ``singledispatch`` function: the implementation registered for the
        nearest class of ``x`` (its class's MRO; an external stream's classes), else the
        base. An argument whose class is not known calls the base, as an unregistered one."""
        key = _key_of(dispatcher)
        registry = self.__dict__.get("_flow_registry", {}).get(key, {})
        at = 1 if dispatcher.cls.name == fm.METHOD_DISPATCHER else 0  # after the bound self
        arg = site.positional[at].value if len(site.positional) > at else None
        if self._function is not None and is_symbolic(arg):
            # ``address: int``, ``h: Handle``: the declared class decides, unless a class
            # registered below it may be what a caller passes (bool for int)
            arg = self.declared_kind(arg)  # type: ignore[attr-defined]
            if arg is None or any(_below(kind, arg) for _, kind, _ in registry.values()):
                # the class is the caller's: dispatched where the summary is applied, with
                # the caller's registrations (flows.py, :meth:`Flows.flow_recorded`)
                return self.record_param_call(dispatcher, site, state)  # type: ignore[arg-type]
        best, chosen = None, dispatcher.field(_BASE)[1]
        for _, kind, impl in registry.values():
            rank = _rank(kind, arg)
            if rank is not None and (best is None or rank < best):
                best, chosen = rank, impl
        return self._call_value(chosen, site.node, site, state, current)


def _key_of(dispatcher: Instance) -> str | None:
    key = dispatcher.field(_KEY)[1]
    return key.value if isinstance(key, Const) and isinstance(key.value, str) else None


def _rank(kind: Value, arg: Value) -> int | None:
    """How near class ``kind`` is to ``arg``'s class (0: its own), ``None``: not a base."""
    if isinstance(kind, ClassInfo) and isinstance(arg, Instance) and arg.param is None:
        order = arg.cls.mro()
        return order.index(kind) if kind in order else None
    if isinstance(kind, Ref) and isinstance(arg, ExtStream) and arg.param is None and arg.must:
        for rank, names in enumerate(_STREAM_CLASSES):
            if kind.qualname in names:
                return rank
    if isinstance(kind, Ref) and isinstance(arg, Const) and arg.value is not None:
        # a literal (or a parameter declared ``int``): its builtin class's MRO
        order = [f"builtins.{k.__name__}" for k in type(arg.value).__mro__]
        return order.index(kind.qualname) if kind.qualname in order else None
    return None


def _below(kind: Value, arg: Value) -> bool:
    """Class ``kind`` derives from ``arg``'s declared class without being it: an argument
    of that class may reach the call, so the declared class alone does not decide."""
    if isinstance(kind, ClassInfo) and isinstance(arg, Instance):
        return kind is not arg.cls and arg.cls in kind.mro()
    if isinstance(kind, Ref) and isinstance(arg, Const):
        below = _SUBCLASSES.get(type(arg.value).__name__, ())
        return kind.qualname.removeprefix("builtins.") in below
    return False


#: Builtin classes a ``singledispatch`` registration may name by annotation, and the
#: builtin classes derived from one (a caller may pass a ``bool`` where ``int`` is declared).
BUILTIN_CLASSES = frozenset({"int", "float", "str", "bytes", "bool", "object"})
_SUBCLASSES = {"int": ("bool",)}
