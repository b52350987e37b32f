"""Registries filled when a class is created: a function's stores into containers it does
not own, kept in its summary and applied where it is called.

``REGISTRY[name] = cls`` in a metaclass's ``__init__``, ``KINDS[cls.__name__] = cls`` or
``Plugin.registry[key] = cls`` in ``__init_subclass__``: the body stores a parameter into a
module global's (or a class attribute's) dict. The body cannot do it itself (its values are
the caller's, not known there), so the store is an effect of calling the function
(:attr:`.values.Summary.stores`), applied with the call's values: at a ``class`` statement
(which calls the metaclass's ``__init__`` with the class, its name, bases and namespace, and
the first base's ``__init_subclass__`` with the class keywords: the language reference's
3.3.3), at module level (the global is that module's state from then on), or in a function
(whose summary then has the store in its own terms). Looked up by a literal key later
(``REGISTRY["External"]``), the dict gives the class stored under it, not every class.

The same holds for any change a function makes to state outside its frame (issue 38): a
parameter or a stream it makes stored into a global of its module (``_streams[k] = s``,
``setdefault``, ``update``, ``append``, ``insert``, ``extend``, a set's ``add``), a class
attribute, an attribute of a global's object (``threading.local()``), another module's
attribute (``config.CURRENT = s``, ``setattr``) or a ``ContextVar`` (``var.set(s)``). Each is a
store of the summary (at most :data:`.values.MAX_STORES`), applied at each call with its
values: the caller's view of the global (or of the path) changes from the call on, and the
caller's summary has the store too, for its own callers. Nothing is run again.

A store at a module's top level into another module's global (``from jobs import HANDLERS``
then ``HANDLERS["comm"] = finish_comm``) changes that module's object for the whole process
once the storing module has run: it is a fact of the storing module's summary
(:data:`FOREIGN_STORES`, with those of the modules it imports, at most
:data:`MAX_FOREIGN_STORES`), in force in every module that imports it, where the global is
read by name (``from jobs import HANDLERS``, ``jobs.HANDLERS``), as a ``singledispatch``
registration is (:mod:`.dispatch`). A function of the global's own module that calls
``REGISTRY[key](...)`` where its module's run left nothing under ``key`` records the call
(:class:`..abstract.callables.GlobalItem`), and each caller looks it up in the dict as it sees
it, with the stores in force there.

A mixin of :class:`.interpreter.Interpreter`.
"""

from __future__ import annotations

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef, Ref
from ..abstract.callables import GlobalItem
from ..abstract.paths import symbolic
from ..abstract.state import State
from ..abstract.values import (
    ClassInfo,
    FunctionInfo,
    Instance,
    Module,
    Seq,
    Summary,
    Value,
    join,
    join_all,
)
from ..semantics.sites import Arg, CallSite
from . import summaries as sm
from .constants import new_copy
from .core import ADDED, REBOUND, Scope, is_symbolic
from .datamodel import metaclass_of
from .flows import CONTENTS
from .globalreads import foreign_key, holds_stream

__all__ = ["ADDED", "FOREIGN_STORES", "MAX_FOREIGN_STORES", "REBOUND", "Registries", "stored"]

#: The holder of a module global in a store: (_MODULE, the module's name), plain data that
#: a cached summary pickles as it is (:mod:`..driver.cache`).
_MODULE = "<module>"
#: A key that is not known (the store goes to "any key" of the dict).
_ANY = Const(...)
#: The holder of a module's attribute path in a store: (_PATH, the storing module's name),
#: the path (``config.CURRENT``) as that module's code names it.
_PATH = "<path>"
#: The module-level name a summary keeps its stores into other modules' globals under (not
#: an identifier; ``from m import *`` skips it): ``Seq((Const(module), Const(name), key,
#: value))`` each.
FOREIGN_STORES = "_<stores>"
#: Stores into other modules' globals a summary keeps at most.
MAX_FOREIGN_STORES = 64


class Registries:
    """Stores into containers a function does not own, as effects of calling it."""

    def note_store(
        self,
        target: cst.Subscript,
        base: Value,
        key: Value,
        value: Value,
        state: State,
        scope: Scope,
    ) -> bool:
        """``holder[key] = value`` in the body being summarised, where a parameter is the
        key or the value and the container is a module global or a class attribute: an
        effect of the function (True: the body's own state does not change)."""
        func = self._function
        if func is None or not isinstance(base, Seq):
            return False
        key = _class_key(target, func, key)
        symbolic = is_symbolic(key) or is_symbolic(value)
        where = target.value
        made_here = isinstance(where, cst.Name) and _carries(value)
        if not symbolic and self.__dict__.get("_creating") is None and not made_here:
            # a class being created: its metaclass's stores are concrete; elsewhere a value
            # the body makes (``_streams["io"] = ExternalStream(h)``) into a global of this
            # module is an effect of the call too
            return False
        holder: object = None
        name = ""
        if isinstance(where, cst.Name) and (
            where.value not in state.env or self._global_view(where.value, scope)  # type: ignore[attr-defined]
        ):
            if where.value in scope.local_names:
                return False
            holder, name = (_MODULE, self.module_name), where.value
        elif isinstance(where, cst.Attribute):
            with self._silenced():
                owner = self.eval(where.value, state, scope)
            if isinstance(owner, ClassInfo):
                holder, name = owner, where.attr.value
        if holder is None or (not symbolic and isinstance(holder, ClassInfo)):
            return False  # Cls.registry[k] = v with concrete values: the class's own state
        if self.learning:
            func.summary.add_store((holder, name, key if key is not None else _ANY, value))
            if holder == (_MODULE, self.module_name):
                self.note_written(name)  # a later call's read of it is kept (globalreads.py)
        if isinstance(holder, tuple):  # read back later in this body: this view holds it
            module = self._scopes.get(self.module)
            before = state.env[name] if name in state.env else module.summary.get(name)
            state.env[name] = stored(before, key if key is not None else _ANY, value)
        return True

    def note_effect(self, holder: object, name: str, changes: list[tuple[Value, Value]]) -> None:
        """Changes (key, value) the body being summarised makes to ``name`` of ``holder`` (a
        class, or ``(_MODULE, module)``), a container or attribute it does not own: effects
        applied where it is called (:meth:`apply_stores`)."""
        func = self._function
        if func is None or not self.learning:
            return
        for key, value in changes:
            if _carries(value) or is_symbolic(key):
                func.summary.add_store((holder, name, key if key is not None else _ANY, value))
                if holder in ((_MODULE, self.module_name), (_PATH, self.module_name)):
                    self.note_written(name.split(".", 1)[0])  # (globalreads.py)

    def note_path_effect(
        self, target: cst.Attribute, key: str, value: Value, state: State, scope: Scope
    ) -> None:
        """``config.CURRENT = s`` (or ``setattr(config, "CURRENT", s)``) in a function body,
        ``config`` a module this module imported: the call rebinds that module's attribute,
        which its caller then reads under the same path."""
        head = key.split(".", 1)[0]
        if self._function is None or head in state.env or head in scope.local_names:
            return
        if isinstance(target.value, (cst.Name, cst.Attribute)):
            self.note_effect((_PATH, self.module_name), key, [(REBOUND, value)])

    def global_holder(self, where: cst.BaseExpression, state: State, scope: Scope) -> object:
        """What ``where`` (the container of a store in a function body) names outside the
        function's frame: ``(_MODULE, module)`` for a global of this module, a class for a
        class attribute (``Cls.registry``); ``None``: a local, or not known."""
        if self._function is None:
            return None
        if isinstance(where, cst.Name):
            name = where.value
            if name in state.env or name in scope.local_names:
                return None
            return (_MODULE, self.module_name)
        if isinstance(where, cst.Attribute):
            with self._silenced():
                owner = self.eval(where.value, state, scope)
            return owner if isinstance(owner, ClassInfo) else None
        return None

    def note_method_store(
        self, receiver: Seq, method: str, node: cst.Call, site: CallSite, state: State, scope: Scope
    ) -> None:
        """``_streams.setdefault(k, s)``, ``_streams.update({k: s})``, ``_pending.append(s)``
        (``insert``, ``extend``, a set's ``add``) in a function body, the container a global
        (or a class attribute): effects of calling the function, as ``_streams[k] = s``."""
        where = node.func.value if isinstance(node.func, cst.Attribute) else None
        holder = self.global_holder(where, state, scope) if where is not None else None
        if holder is None or site.star_at is not None or site.double_star:
            return
        name = where.attr.value if isinstance(where, cst.Attribute) else where.value  # type: ignore[union-attr]
        args = [arg.value for arg in site.positional]
        changes: list[tuple[Value, Value]] = []
        if method in ("append", "appendleft", "add") and len(args) == 1:
            changes.append((ADDED, args[0]))
        elif method == "insert" and len(args) == 2:
            changes.append((ADDED if not receiver.items else _ANY, args[1]))
        elif method == "extend" and len(args) == 1:
            added = args[0]
            if isinstance(added, Seq) and not added.keys and not added.is_dict:
                changes.extend((ADDED, item) for item in added.items)
            else:
                changes.append((_ANY, sm.element(added)))
        elif method == "setdefault" and args:
            given = dict(receiver.keys)
            literal = args[0].value if isinstance(args[0], Const) else None
            if literal not in given:
                changes.append((args[0], args[1] if len(args) > 1 else None))
        elif method == "update":
            for arg in args[:1]:
                if isinstance(arg, Seq) and arg.keys:
                    changes.extend((Const(k), v) for k, v in arg.keys)
                elif isinstance(arg, Seq):
                    changes.append((_ANY, sm.contents(arg)))
            changes.extend((Const(k), v.value) for k, v in site.keywords.items())
        self.note_effect(holder, name, changes)

    def note_imported(self, local: str, module: str, name: str, scope: Scope) -> None:
        """``from module import name as local`` at the top level: ``local`` is that
        module's global (what a store into it changes, :meth:`foreign_store`)."""
        if scope.kind == "module" and module:
            self.__dict__.setdefault("_imported_from", {})[local] = (module, name)

    def foreign_store(
        self, target: cst.Subscript, key: Value, value: Value, state: State, scope: Scope
    ) -> None:
        """``NAME[key] = value`` at the top level, ``NAME`` another module's global: in
        force here and, through this module's summary, in its importers."""
        where = target.value
        if scope.kind != "module" or value is None or isinstance(value, Const):
            return  # a literal (``CONFIG["debug"] = True``) carries nothing to a call
        origin: tuple[str, str] | None = None
        if isinstance(where, cst.Name):
            origin = self.__dict__.get("_imported_from", {}).get(where.value)
        elif isinstance(where, cst.Attribute):  # ``jobs.HANDLERS[key] = value``
            with self._silenced():
                owner = self.eval(where.value, state, scope)
            name = owner.name if isinstance(owner, Module) else None
            if isinstance(owner, Ref):  # a module not followed from here
                name = owner.qualname
            if name and name != self.module_name:
                origin = (name, where.attr.value)
        if origin is not None:
            self._store_in_force(origin, key if key is not None else _ANY, value, state, True)

    def imported_stores(self, module: Module, state: State, scope: Scope) -> None:
        """Importing project module ``module`` ran it: its stores into other modules'
        globals (and those of the modules it imports) are in force here from now on."""
        facts = self.facts
        if facts is not None:
            facts.read(module.name, FOREIGN_STORES)
            if not facts.holds(module.name, FOREIGN_STORES):
                return
        held = module.exports.get(FOREIGN_STORES)
        for item in held.items if isinstance(held, Seq) else ():
            if not isinstance(item, Seq) or len(item.items) != 4:
                continue
            owner, name, key, value = item.items
            if isinstance(owner, Const) and isinstance(name, Const):
                origin = (str(owner.value), str(name.value))
                self._store_in_force(origin, key, value, state, scope.kind == "module")

    def _store_in_force(
        self, origin: tuple[str, str], key: Value, value: Value, state: State, exported: bool
    ) -> None:
        """``module.name[key] = value`` done: the names bound to that global here see it,
        as will the imports of it from now on (:meth:`global_of`)."""
        in_force = self.__dict__.setdefault("_stores_in_force", {}).setdefault(origin, {})
        ident = (_ident(key), _ident(value))
        if ident not in in_force:
            in_force[ident] = (key, value)
            module = self._scopes.get(self.module)
            for local, bound in self.__dict__.get("_imported_from", {}).items():
                if bound == origin and local in state.env:
                    state.env[local] = stored(state.env[local], key, value)
                    if self.learning and module is not None and local in module.summary:
                        module.summary[local] = state.env[local]
        if not exported or not self.learning:
            return
        kept = self.__dict__.setdefault("_stores_kept", {})
        entry = (*origin, *ident)
        if entry in kept or len(kept) >= MAX_FOREIGN_STORES:
            return
        kept[entry] = Seq((Const(origin[0]), Const(origin[1]), key, value))
        module = self._scopes.get(self.module)
        if module is not None:
            module.summary[FOREIGN_STORES] = Seq(tuple(kept.values()))

    def global_of(self, module: str, name: str, value: Value) -> Value:
        """``module.name`` read here: its value with the stores in force into it."""
        in_force = self.__dict__.get("_stores_in_force", {}).get((module, name))
        for key, item in in_force.values() if in_force else ():
            value = stored(value, key, item)
        return value

    def deferred_lookup_call(
        self, func: cst.Subscript, site: CallSite, state: State, scope: Scope
    ) -> Value:
        """``REGISTRY[key](...)`` in a summarised body, ``REGISTRY`` a dict global of this
        module with nothing under ``key`` here: a call the summary records, made where it
        is applied, with the stores in force there (``None``: not one)."""
        where = func.value
        if self._function is None or not self.module_name or not isinstance(where, cst.Name):
            return None
        if where.value in state.env or where.value in scope.local_names or len(func.slice) != 1:
            return None
        module = self._scopes.get(self.module)
        held = module.summary.get(where.value) if module is not None else None
        index = func.slice[0].slice
        if not isinstance(held, Seq) or not _keyed(held) or not isinstance(index, cst.Index):
            return None
        with self._silenced():
            key = self.eval(index.value, state, scope)
        callee = GlobalItem(self.module_name, where.value, key)
        return self.record_param_call(callee, site, state)  # type: ignore[arg-type]

    def looked_up(self, item: GlobalItem, binding: sm.Binding, state: State) -> Value:
        """The callee a recorded ``REGISTRY[key](...)`` names here: the dict as this module
        sees it (this body's view, after the stores its calls made), stores in force
        included, under the caller's key."""
        if item.module == self.module_name:
            module = self._scopes.get(self.module)
            held = module.summary.get(item.name) if module is not None else None
            held = state.env.get(item.name, held) if self._global_name(item.name) else held
        else:
            found = self._project_module(item.module)
            if found is None:
                return None
            if self.facts is not None:
                self.facts.read(found.name, item.name)
            held = found.exports.get(item.name)
        held = self.global_of(item.module, item.name, held)
        if not isinstance(held, Seq):
            return None
        key = sm.substitute(item.key, binding)
        literal = key.value if isinstance(key, Const) else None
        if isinstance(literal, (str, int)) and held.keys:
            return sm.item(held, literal)
        return sm.contents(held)

    def _global_name(self, name: str) -> bool:
        """``name`` in the body being run is the module's global, not a local of its own."""
        caller = self._definitions.get(self._function) if self._function is not None else None
        own = self._scopes.get(caller[0]) if caller is not None else None
        return own is None or name not in own.local_names or name in own.outer_names

    def apply_stores(self, info: FunctionInfo, binding: sm.Binding, state: State) -> None:
        """The stores of a called function, with this call's values: at the top level the
        global changes from here on; in a function, the caller's view of it does (read
        after the call, not before), and the caller's summary has the store too."""
        here = self._function
        module = self._scopes.get(self.module)
        mine = (_MODULE, self.module_name)
        for holder, name, key, value in list(info.summary.stores):
            actual_key = key if key is _ANY else _actual(key, binding)
            actual = _actual(value, binding)
            if actual_key is None:
                actual_key = _ANY
            if here is not None and (is_symbolic(actual_key) or is_symbolic(actual)):
                if self.learning:  # still the caller's parameters: the caller's effect
                    here.summary.add_store((holder, name, actual_key, actual))
                if holder != mine or is_symbolic(actual):
                    continue  # (a value of its own under the caller's key: its view too)
            if isinstance(holder, ClassInfo):
                if actual_key == REBOUND:  # Cls.current = s, _local.s = s, var.set(s)
                    self._learn_effect(holder, name, actual)
                    continue
                owner = next((k for k in holder.mro() if name in k.attrs), None)
                if self.learning and owner is not None:  # the dict the class body made, grown
                    owner.attrs[name] = stored(owner.attrs[name], actual_key, actual)
                continue
            if holder == (_PATH, self.module_name) and actual_key == REBOUND:
                self._rebind_path(name, actual, state)
                continue
            if holder != mine and isinstance(holder, tuple) and holder[0] == _MODULE:
                # another module's global: this state's view of it, when a stream is stored
                # (globalreads.py); any other store there is that module's run, as before
                if not holds_stream(actual):
                    continue
                before = self.foreign_global(holder[1], name, state)
                state.env[foreign_key(holder[1], name)] = stored(before, actual_key, actual)
                if self.learning and here is not None:
                    here.summary.add_store((holder, name, actual_key, actual))
                continue
            if holder != mine or module is None:
                continue
            if here is None:
                if name in state.env:
                    state.env[name] = stored(state.env[name], actual_key, actual)
                    if self.learning:
                        module.summary[name] = join(module.summary.get(name), state.env[name])
                continue
            if self.learning:  # the caller's callers see it done too
                here.summary.add_store((holder, name, actual_key, actual))
            caller = self._definitions.get(here)
            own = self._scopes.get(caller[0]) if caller is not None else None
            if own is not None and name in own.local_names and name not in own.outer_names:
                continue  # the caller's own variable of that name, not the global
            before = state.env[name] if name in state.env else module.summary.get(name)
            state.env[name] = stored(before, actual_key, actual)

    def _rebind_path(self, path: str, value: Value, state: State) -> None:
        """A call set attribute ``path`` (``config.CURRENT``, ``Holder.current``, what the
        ``ContextVar`` ``_active`` holds): read after it here, it is ``value``; the caller's
        callers see the call's effect too."""
        here = self._function
        head = path.split(".", 1)[0]
        if here is not None:
            if self.learning:
                here.summary.add_store(((_PATH, self.module_name), path, REBOUND, value))
            caller = self._definitions.get(here)
            own = self._scopes.get(caller[0]) if caller is not None else None
            if own is not None and head in own.local_names:
                return  # the caller's own variable of that name
        if path == f"{head}.{CONTENTS}":  # var.set(s): this view of the holder holds s
            module = self._scopes.get(self.module)
            holder = state.env.get(head)
            if holder is None and module is not None:
                holder = module.summary.get(head)
            if isinstance(holder, Instance) and holder.param is None:
                state.env[head] = holder.with_field(CONTENTS, value)
            return
        state.set_path(path, value)

    def note_rebound(
        self, cls: ClassInfo, name: str, value: Value, where: cst.BaseExpression, state: State
    ) -> None:
        """``Holder.current = s``, ``_local.s = s``, ``_active.set(s)`` (``name``: the
        holder's contents) in a function body, ``s`` its parameter: the call sets what the
        class (every object of it) holds, and what its caller reads under that name."""
        if not is_symbolic(value):
            return
        self.note_effect(cls, name, [(REBOUND, value)])
        defined = self._definitions.get(self._function) if self._function is not None else None
        own = self._scopes.get(defined[0]) if defined is not None else None
        if not isinstance(where, cst.Name) or where.value in state.env:
            return
        if own is not None and where.value not in own.local_names:
            path = f"{where.value}.{name}"
            self.note_effect((_PATH, self.module_name), path, [(REBOUND, value)])

    def _learn_effect(self, cls: ClassInfo, name: str, value: Value) -> None:
        """A call set ``name`` of class ``cls`` (what every object of it holds, a shared
        holder's contents) to ``value``: while every call that sets it there gives an
        external stream, the class's attribute, as if set in the call's body (classes are
        flow-insensitive), so a function called later that reads it sees it. Kept across
        passes (:meth:`effect_on`): a pass that learnt a new one is followed by another.
        Once a call sets something else there, each caller sees only its own call's value
        (:meth:`_rebind_path`): a managed stream set in one function and an external one in
        another are not joined into a "may" at every read."""
        if not self.learning:
            return
        kept: dict[tuple[int, str], Value] = self.__dict__.setdefault("_effects_kept", {})
        ident = (id(cls), name)
        before = kept.get(ident)
        joined = join(before, value) if ident in kept else value
        if ident not in kept or joined != before:
            kept[ident] = joined
            self._applied.append((Summary(), -1))  # not stable yet: another pass
        if _external(joined):
            self.learn_attr(cls, name, value)

    def effect_on(self, cls: ClassInfo, name: str, value: Value) -> Value:
        """``value`` written to ``cls.name`` first in a pass, with what calls set there."""
        kept = self.__dict__.get("_effects_kept")
        ident = (id(cls), name)
        if not kept or ident not in kept or not _external(kept[ident]):
            return value
        return join(value, kept[ident])

    def run_metaclass_new(
        self, cls: ClassInfo, meta: ClassInfo, namespace: Seq, state: State
    ) -> None:
        """``class C(metaclass=M)``: ``M.__new__(M, "C", bases, namespace)`` makes the class.
        Its body is learnt once per class created (as :meth:`.datamodel.DataModel.for_class`
        learns a ``__new__`` per class), with those literal arguments, so that
        ``namespace.get("key")`` is the class body's value and ``super().__new__(mcs, ...)``
        is the class itself; what it stores then lands in the registries. A copy stores only
        where the generic body (learnt in the first pass) does: if it does nowhere, no copy."""
        new = meta.method("__new__")
        where = self._definitions.get(new) if new is not None else None
        if new is None or where is None or (self._passes > 1 and not new.summary.stores):
            return
        made = new_copy(self._specialised, (new, self._passes, ("<created>", id(cls))), new)
        if made is None:
            return
        special, fresh = made
        if fresh:
            node, scope, owner = where
            given = (meta, Const(cls.name), Seq(tuple(cls.bases)), namespace)
            # by position only: a ``*args`` of __new__ is not any one of them
            fixed = {
                i: v
                for i, v in enumerate(given)
                if i < len(new.params) and new.params[i][1] == "pos"
            }
            creating = self.__dict__.get("_creating")
            self._creating = cls
            try:
                self.learn_copy(node, scope, owner, special, fixed)  # type: ignore[attr-defined]
            finally:
                self._creating = creating
        self.apply_stores(special, sm.Binding(special, {}, None), state)

    def created_class(self, first: Value) -> Value:
        """``super().__new__(mcs, ...)`` in a metaclass's ``__new__`` run for a class being
        created (:meth:`run_metaclass_new`): that class. ``None`` elsewhere."""
        creating = self.__dict__.get("_creating")
        if creating is None or not isinstance(first, ClassInfo):
            return None
        return creating if first is metaclass_of(creating) else None

    def run_metaclass_init(
        self, node: cst.ClassDef, cls: ClassInfo, meta: ClassInfo, namespace: Seq, state: State
    ) -> None:
        """``class C(metaclass=M)``: ``M.__init__(C, "C", bases, namespace)`` runs once the
        class object exists (its stores land in the registries it fills)."""
        init = meta.method("__init__")
        if init is None:
            return
        bases = Seq(tuple(cls.bases))
        args = [Arg(Const(cls.name), None), Arg(bases, None), Arg(namespace, None)]
        site = CallSite(node, "__init__", args)  # type: ignore[arg-type]
        with self._silenced():
            self._call_function(init, node, site, Arg(cls, None), state, None)


#: Elements a list grown by a call keeps one by one (past it: one of them).
_MAX_ITEMS = 64


def _external(value: Value) -> bool:
    """An external stream on every path (what a class may learn from calls' effects)."""
    return isinstance(value, ExtStream) and value.must and value.param is None


def _carries(value: Value) -> bool:
    """Whether a stored value can carry a stream to a call (a literal cannot)."""
    return value is not None and type(value) is not Const


def _keyed(value: Seq) -> bool:
    """A dict whose keys are all literals (a display, or an empty dict so far)."""
    return bool(value.keys) or (value.is_dict and not value.items)


def _ident(value: Value) -> object:
    """What tells two keys or stored values apart: the value, or its identity if unhashable."""
    try:
        hash(value)
    except TypeError:
        return id(value)
    return value


def _actual(value: Value, binding: sm.Binding) -> Value:
    """A summarised value in the caller's terms; a metaclass method's ``cls`` (an instance of
    the metaclass to its body) is the class the caller passes."""
    if (
        isinstance(value, Instance)
        and value.param is not None
        and value.param.owner is binding.info
    ):
        given, _ = sm.resolve(value.param, binding)
        if isinstance(given, ClassInfo):
            return given
    return sm.substitute(value, binding)


def _class_key(target: cst.Subscript, func: FunctionInfo, key: Value) -> Value:
    """``REGISTRY[cls.name] = cls`` in ``__init_subclass__``: the class attribute of the
    class being created (its own, else inherited), not the literal the defining class gives
    it (which the body read)."""
    if func.name != "__init_subclass__":
        return key
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return key
    read = target.slice[0].slice.value
    if not isinstance(read, cst.Attribute) or not isinstance(read.value, cst.Name):
        return key
    if not func.params or read.value.value != func.params[0][0]:
        return key
    return symbolic(ParamRef(func, 0, (read.attr.value,)))


def stored(container: Value, key: Value, value: Value) -> Value:
    """``container`` after ``container[key] = value``: under a literal key of a dict keyed by
    literals, that key; otherwise one of its values."""
    if not isinstance(container, Seq):
        return container
    if not container.keys and not container.is_dict:  # a list, deque or set
        if key == ADDED and len(container.items) < _MAX_ITEMS:
            return Seq((*container.items, value))
        return Seq((join(sm.contents(container), value) if container.items else value,))
    if key == ADDED:
        return container
    literal = key.value if isinstance(key, Const) and key is not _ANY else None
    if isinstance(literal, (str, int)) and (
        container.keys or (container.is_dict and not container.items)
    ):
        keys = (*((k, v) for k, v in container.keys if k != literal), (literal, value))
        return Seq((join_all([v for _, v in keys]),), keys)
    held = join(sm.contents(container), value) if container.items else value
    return Seq((held,), is_dict=True)
