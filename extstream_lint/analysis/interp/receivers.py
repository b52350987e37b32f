"""Summaries polymorphic in the receiver: a call on ``self`` resolved where a summary is applied.

A method's summary is learnt once, with ``self`` an instance of the class that defines it, so
``self.s = self._make(h)`` in a base's ``__init__`` runs the base's ``_make``. Python looks
``_make`` up through the MRO of the instance's class: a subclass that overrides it (in this
module, or in another one that imports the base) gets its own maker's stream. Re-running the
base's bodies for each subclass (the views of :mod:`.views`, within one module) costs a body
per subclass; across modules it was too dear (issue 38's Cost: 188 s to 481 s on transformers).

Here the summary keeps the call instead: the attribute is marked as "what ``self._make``
returns with these arguments" (:attr:`..values.Summary.overridable`), and where the summary is
applied to an instance whose class resolves ``_make`` to another function, that function's
summary is applied with the call's arguments and the attribute is what it returns. No body
runs twice: each override is summarised once, where it is defined, as any function is.

A call on ``self`` whose own result the analysis does not know (a managed stream, an abstract
method) is kept the same way wherever its result goes, not only into an attribute or a
``return``: its value is a path of ``self``, ``self.<self.m()>`` (no Python name starts
with ``<``), so a refused operation made on it (``self._stream().synchronize()``, passed to
``wait_stream``, made current for a collective, given to ``record_stream``) is a sink of the
summary, as one on ``self.s`` is. Where the summary is applied, the receiver gets that path
bound to what its class's ``m`` returns (:meth:`Receivers.receiver_binding`), so the sink is
judged at the call, with the override's value; a property the sinks read through ``self``
is evaluated on the receiver there too. A method calling another on its own ``self`` keeps
the callee's calls in turn, in its own terms, so a subclass further out still resolves them.

The same holds for every parameter, not only ``self``: ``m.stream()`` on a parameter (or on
an attribute path of one, ``self.m.stream()``) is a recorded call (:mod:`.higher_order`)
whose result the caller's object decides (:meth:`..flows.Flows.loaded_or`), and a property a
sink or the return reads on an argument's path is evaluated on the caller's object
(:meth:`Receivers.argument_properties`). A subclass's view of a base's method (:mod:`.views`)
keeps a call the subclass's own override answers with a stream: the base's code is shared by
its other subclasses, so the finding is the external instance's call's.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.callables import ParamCall
from ..abstract.paths import symbolic
from ..abstract.state import State
from ..abstract.values import Current, FunctionInfo, Instance, Value, is_none
from ..semantics.sites import Arg, CallSite
from . import summaries as sm
from .higher_order import recorded_call
from .views import carries_stream

#: The name a call's pending record is kept under while its statement finishes.
_PENDING = "_self_calls"
#: The key of :attr:`..values.Summary.overridable` for what the method returns (a keyword:
#: no attribute is named so).
RETURN = "return"
#: The call resolves to the function the body ran: the summary's own value stands.
_SAME = Const("<same>")
#: How a kept call's path step starts (:meth:`Receivers.self_call_result`).
CALL_STEP = sm.SELF_CALL
#: At most this many calls on ``self`` kept per summary (a body is bounded; passes repeat it).
MAX_SELF_CALLS = 8
#: How deep receivers are resolved through overrides that call on ``self`` in turn.
_MAX_DEPTH = 4


class Receivers:
    """Calls on ``self`` kept in summaries, and resolved on the concrete class."""

    def note_self_call(
        self,
        node: cst.Call,
        receiver: Value,
        method: str,
        callee: Value,
        site: CallSite,
        state: State,
    ) -> None:
        """``self.m(...)`` in a method, ``m`` a function: remembered for the statement that
        stores its result (:meth:`note_overridable`)."""
        info = self._function  # type: ignore[attr-defined]
        if not self.learning or info is None or not isinstance(callee, FunctionInfo):  # type: ignore[attr-defined]
            return
        ref = receiver.param if isinstance(receiver, Instance) else None
        if ref is None or ref.owner is not info or ref.index != 0 or ref.path:
            return
        call = recorded_call(None, site, state)
        self.__dict__.setdefault(_PENDING, {})[id(node)] = (node, method, callee, call)

    def note_overridable(self, stmt: cst.Assign | cst.Return) -> None:
        """``self.x = self.m(...)``: the summary marks ``x`` as what ``m`` returns;
        ``return self.m(...)``: the same for what the method returns (:data:`RETURN`)."""
        pending = self.__dict__.get(_PENDING)
        if not pending:
            return
        found = pending.pop(id(stmt.value), None)
        pending.clear()
        info = self._function  # type: ignore[attr-defined]
        if found is None or found[0] is not stmt.value or info is None or not info.params:
            return
        own = info.params[0][0]
        names = [RETURN] if isinstance(stmt, cst.Return) else []
        for target in stmt.targets if isinstance(stmt, cst.Assign) else ():
            node = target.target
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.value.value == own
            ):
                names.append(node.attr.value)
        entry = (found[1], found[2], found[3])
        summary = info.summary
        for name in names:
            if summary.overridable.get(name) != entry:
                summary.overridable[name] = entry
                summary.version += 1

    def apply_overrides(
        self,
        method: FunctionInfo,
        made: Instance,
        node: cst.CSTNode,
        binding: sm.Binding,
        state: State,
    ) -> Instance:
        """``method`` applied to ``made``: each attribute its summary marks as set from a
        call on ``self`` that ``made``'s class resolves to another function is what that
        function returns for the call's arguments (in this call's terms)."""
        for name, entry in method.summary.overridable.items():
            if name != RETURN and not name.startswith(CALL_STEP):
                value = self._override(entry, made, node, binding, state)
                if value is not _SAME:
                    made = made.with_field(name, value)
        return made

    def override_attrs(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> None:
        """``obj.reset()`` on an instance a name holds: the attributes ``reset`` sets from
        an overridden call on ``self`` (:meth:`apply_overrides`), on that name."""
        arg = binding.args.get(0)
        if arg is None or arg.text is None:
            return
        held = state.env.get(arg.text, arg.value)
        if not isinstance(held, Instance) or held.param is not None:
            return
        made = self.apply_overrides(info, held, node, binding, state)
        if made is not held:
            state.env[arg.text] = made
            for name, value in made.fields:
                state.set_path(f"{arg.text}.{name}", value)

    def override_return(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> Value:
        """``obj.stream()`` whose body is ``return self._make()``, ``_make`` overridden by
        ``obj``'s class: what the override returns; ``None``: the summary's own return."""
        entry = info.summary.overridable.get(RETURN)
        arg = binding.args.get(0)
        if entry is None or arg is None or not isinstance(arg.value, Instance):
            return None
        if arg.value.param is not None:
            return None
        value = self._override(entry, arg.value, node, binding, state)
        return None if value is _SAME else value

    def self_call_result(
        self,
        node: cst.Call,
        receiver: Value,
        method: str,
        callee: Value,
        site: CallSite,
        state: State,
        made: Value,
    ) -> Value:
        """``self.m(...)`` in a method, ``made`` what the body's own ``m`` returns: when that
        is nothing known (a managed stream, an abstract method, ``None``), the call is kept
        for the receiver, and its value is the path ``self.<self.m()>`` (a sink where a
        refused operation is made on it), bound where the summary is applied
        (:meth:`receiver_binding`)."""
        info = self._function  # type: ignore[attr-defined]
        if info is None or not isinstance(callee, FunctionInfo):
            return made
        original: FunctionInfo | None = callee
        if made is not None and not is_none(made):  # a value it knows: the body's own
            if not self._overridden_in_view(info, method, callee, made):
                return made
            original = None  # resolved by each receiver's class, even the view's own
        if not _own_self(receiver, info):
            return made
        entry = (method, original, recorded_call(None, site, state))
        key = self._keep_call(info, id(node), f"{CALL_STEP}{method}()>", entry)
        if key is None:
            return made
        kept = symbolic(ParamRef(info, 0, (key,)))
        if original is None:  # what the view's class makes, for the view's own stores
            self.__dict__.setdefault("_view_kept", {})[kept.param] = made
        return kept

    def view_kept(self, value: Value) -> Value:
        """``value`` itself, or, a call a view keeps for the receiver
        (:meth:`_overridden_in_view`), what the view's class makes there: an attribute
        the base's code stores it in is the subclass's (its views read it), as before."""
        ref = value.param if isinstance(value, ExtStream) else None
        if ref is None or not ref.path or not ref.path[-1].startswith(CALL_STEP):
            return value
        return self.__dict__.get("_view_kept", {}).get(ref, value)

    def _overridden_in_view(
        self, info: FunctionInfo, method: str, callee: FunctionInfo, made: Value
    ) -> bool:
        """``info`` is a subclass's view of a base's method (:mod:`.views`), ``self.m()``
        there a stream the subclass's own ``m`` makes: the base's code is shared with the
        base's other subclasses, so what the call returns is the receiver's, judged where
        an instance of the subclass calls the method (not as definite in the base)."""
        if not isinstance(made, ExtStream) or made.param is not None:
            return False
        cls = self.own_class()  # type: ignore[attr-defined]
        if cls is None or not cls.views:
            return False
        original = next((o for o, view in cls.views.items() if view is info), None)
        if original is None:
            return False
        base = self.__dict__.get("_method_classes", {}).get(id(original))
        return base is not None and base.method(method) is not callee

    def receiver_binding(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> sm.Binding:
        """The binding ``info``'s sinks and return are read with: its receiver (argument 0)
        with each call on ``self`` the summary keeps resolved by the receiver's class (or,
        resolved as the body did and the receiver the caller's own ``self``, kept by the
        caller in turn), and each property a sink reads through ``self`` evaluated on it.
        ``binding`` itself when there is nothing to resolve."""
        arg = binding.args.get(0)
        if arg is None or not isinstance(arg.value, Instance):
            return binding
        calls = [(n, e) for n, e in info.summary.overridable.items() if n.startswith(CALL_STEP)]
        properties = _sink_properties(info, arg.value)
        depth = self.__dict__.get("_receiver_depth", 0)
        if not (calls or properties):
            return binding
        if depth >= _MAX_DEPTH:
            if any(carries_stream(a.value) for a in binding.args.values()):
                self.cut_at("receivers._MAX_DEPTH", node)  # type: ignore[attr-defined]
            return binding
        plain = receiver = _plain(arg.value)
        self.__dict__["_receiver_depth"] = depth + 1
        try:
            for name, entry in calls:
                value = self._override(entry, plain, node, binding, state)
                if value is _SAME:
                    value = self._adopt(node, name, entry, plain, binding)
                    if value is None:
                        continue
                receiver = receiver.with_field(name, value)
            for name, getter in properties:
                with self._silenced():  # type: ignore[attr-defined]
                    value = self._call_function(  # type: ignore[attr-defined]
                        getter, node, None, Arg(plain, None), state, binding.current
                    )
                if value is not None and not (isinstance(value, ExtStream) and value.param):
                    receiver = receiver.with_field(name, value)
        finally:
            self.__dict__["_receiver_depth"] = depth
        if receiver is arg.value:
            return binding
        args = dict(binding.args)
        args[0] = Arg(receiver, arg.text)
        return replace(binding, args=args)

    def argument_properties(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> sm.Binding:
        """The binding ``info``'s sinks and return are read with: each property they read on
        a path of an argument (``m.current``, ``p.mgr.current``, ``self.m.current`` with
        ``self.m`` the caller's object) evaluated on the caller's object there, its getter's
        summary applied once per property on the path, as reading the attribute calls it.
        ``binding`` itself when they read none."""
        depth = self.__dict__.get("_receiver_depth", 0)
        read = [(index, path) for index, path, _, _ in info.summary.sinks]
        returned = info.returns
        if isinstance(returned, ExtStream) and returned.param is not None:
            read.extend((ref.index, ref.path) for ref in returned.refs() if ref.owner is info)
        if not read:
            return binding
        if depth >= _MAX_DEPTH:
            if any(carries_stream(a.value) for a in binding.args.values()):
                self.cut_at("receivers._MAX_DEPTH", node)  # type: ignore[attr-defined]
            return binding
        args: dict[int, Arg] | None = None
        self.__dict__["_receiver_depth"] = depth + 1
        try:
            for index, path in read:
                arg = (args or binding.args).get(index)
                if arg is None or not path or not isinstance(arg.value, Instance):
                    continue
                value = self._read_properties(arg.value, path, node, binding, state)
                if value is not arg.value:
                    args = dict(args or binding.args)
                    args[index] = Arg(value, arg.text)
        finally:
            self.__dict__["_receiver_depth"] = depth
        return binding if args is None else replace(binding, args=args)

    def _read_properties(
        self,
        obj: Instance,
        path: tuple[str, ...],
        node: cst.CSTNode,
        binding: sm.Binding,
        state: State,
    ) -> Instance:
        """``obj`` with the properties ``path`` reads on it, and on the objects it holds
        along ``path``, evaluated (their getters' results as fields); ``obj`` when none."""
        step = path[0]
        if obj.param is not None or step.startswith(("[", "<")):
            return obj
        found, held = obj.field(step)
        if not found:
            getter = obj.cls.method(step)
            if getter is None or not getter.is_property:
                held = obj.cls.attr(step)
                if not isinstance(held, Instance) or len(path) < 2:
                    return obj
            else:
                with self._silenced():  # type: ignore[attr-defined]
                    held = self._call_function(  # type: ignore[attr-defined]
                        getter, node, None, Arg(_plain(obj), None), state, binding.current
                    )
                if held is None or (isinstance(held, ExtStream) and held.param):
                    return obj
                return obj.with_field(step, held)
        if not isinstance(held, Instance) or len(path) < 2:
            return obj
        inner = self._read_properties(held, path[1:], node, binding, state)
        return obj if inner is held else obj.with_field(step, inner)

    def property_of_instance(
        self, obj: Instance, name: str, node: cst.CSTNode, state: State
    ) -> tuple[bool, Value]:
        """``obj.name``, ``name`` a property: ``True`` and the getter applied to ``obj`` (a
        call of it, so the call's copies decide) when ``obj`` is an instance a caller holds
        and the getter returns a call on ``self`` it keeps (resolved by ``obj``'s class),
        when the getter passes ``self``'s attributes on where their literals are followed
        (``make(self.kind)``), or when ``obj`` is a copy's receiver holding what the
        caller's allocation gave it (``self._lane``, :func:`.constants._own_streams`): the
        getter's generic summary would read the class-level join there. ``False`` for any
        other attribute (its value is the summary's, :meth:`.classes.Classes._attribute_of`)."""
        getter = obj.cls.method(name)
        if getter is None or not getter.is_property or obj.field(name)[0]:
            return False, None
        passes = any(not index for index, _ in self._passed_attrs.get(getter, ())) or (  # type: ignore[attr-defined]
            obj.param is not None and any(not n.startswith(CALL_STEP) for n, _ in obj.fields)
        )
        if not passes and (obj.param is not None or not sm.kept_call(getter.returns)):
            return False, None
        current = self._current(state)  # type: ignore[attr-defined]
        made = self._call_function(  # type: ignore[attr-defined]
            getter, node, None, Arg(obj, None), state, current
        )
        return passes or made is not None, made  # a managed lane is nothing known: None

    def _adopt(
        self,
        node: cst.CSTNode,
        name: str,
        entry: tuple[str, FunctionInfo | None, object],
        receiver: Instance,
        binding: sm.Binding,
    ) -> Value:
        """A call the callee keeps on its ``self``, which is the caller's own ``self`` and
        whose class resolves it as the callee's body did: the caller keeps it in turn, with
        the arguments in its terms; its value there is the caller's path."""
        info = self._function  # type: ignore[attr-defined]
        method, original, call = entry
        if info is None or not _own_self(receiver, info) or not isinstance(call, ParamCall):
            return None
        current = self._recorded_current(call, binding)  # type: ignore[attr-defined]
        moved = replace(
            call,
            positional=tuple(sm.substitute(v, binding) for v in call.positional),
            keywords=tuple((k, sm.substitute(v, binding)) for k, v in call.keywords),
            spread=sm.substitute(call.spread, binding),
            kw_spread=sm.substitute(call.kw_spread, binding),
            current=None if current is None else Current(current, "", None),
        )
        stem = name.split("#", 1)[0]
        key = self._keep_call(info, (id(node), name), stem, (method, original, moved))
        return None if key is None else symbolic(ParamRef(info, 0, (key,)))

    def _keep_call(
        self,
        info: FunctionInfo,
        ident: object,
        name: str,
        entry: tuple[str, FunctionInfo | None, object],
    ) -> str | None:
        """The path step ``info``'s summary keeps the call ``entry`` under: one per call
        site of the body (``ident``), the same in every pass; a new one only while learning
        and while the summary keeps fewer than :data:`MAX_SELF_CALLS`."""
        every: dict[int, dict[object, str]] = self.__dict__.setdefault("_self_call_keys", {})
        keys = every.setdefault(id(info), {})
        kept = info.summary.overridable
        key = keys.get(ident)
        if key is None:
            if not self.learning or len(keys) >= MAX_SELF_CALLS:  # type: ignore[attr-defined]
                return None
            taken = set(keys.values())
            # A step an earlier run of this body kept for the same call: the same step.
            key = next((k for k, e in kept.items() if e == entry and k not in taken), None)
            if key is None:
                if sum(1 for k in kept if k.startswith(CALL_STEP)) >= MAX_SELF_CALLS:
                    return None
                key, count = name, 1
                while key in kept or key in taken:
                    key, count = f"{name}#{count}", count + 1
            keys[ident] = key
        if self.learning and kept.get(key) != entry:  # type: ignore[attr-defined]
            if key in kept:  # its arguments changed: what an override returns may too
                info.summary.version += 1
            # A new one changes nothing a caller read before: it is read only through the
            # sinks, returns and attributes that name it, which count their own changes.
            kept[key] = entry
        return key

    def _override(
        self,
        entry: tuple[str, FunctionInfo | None, object],
        receiver: Instance,
        node: cst.CSTNode,
        binding: sm.Binding,
        state: State,
    ) -> Value:
        """What the call ``entry`` records returns on ``receiver``, when its class resolves
        the method to another function than the body ran (any, for a call a view kept:
        ``None`` there); else :data:`_SAME`."""
        called, original, call = entry
        found = receiver.cls.method(called)
        if found is None or found is original:
            return _SAME
        site = self._recorded_site(call, node, binding)  # type: ignore[attr-defined]
        current = self._recorded_current(call, binding)  # type: ignore[attr-defined]
        return self._call_function(  # type: ignore[attr-defined,no-any-return]
            found, node, site, Arg(_plain(receiver), None), state, current
        )


def _own_self(receiver: Value, info: FunctionInfo) -> bool:
    """``receiver`` is the ``self`` of ``info``, the method being summarised."""
    ref = receiver.param if isinstance(receiver, Instance) else None
    return ref is not None and ref.owner is info and ref.index == 0 and not ref.path


def _plain(receiver: Instance) -> Instance:
    """``receiver`` without the calls on ``self`` a binding resolved on it (another
    function's summary keeps its own under the same steps)."""
    if not any(name.startswith(CALL_STEP) for name, _ in receiver.fields):
        return receiver
    kept = tuple(item for item in receiver.fields if not item[0].startswith(CALL_STEP))
    return replace(receiver, fields=kept)


def _sink_properties(info: FunctionInfo, receiver: Instance) -> list[tuple[str, FunctionInfo]]:
    """The properties of ``receiver``'s class that ``info``'s sinks read through ``self``
    (``self.stream.query()``, ``stream`` a property): their getters, by name."""
    found: dict[str, FunctionInfo] = {}
    for index, path, _, _ in info.summary.sinks:
        if index != 0 or not path or path[0] in found or receiver.field(path[0])[0]:
            continue
        getter = receiver.cls.method(path[0])
        if getter is not None and getter.is_property:
            found[path[0]] = getter
    return list(found.items())


__all__ = ["CALL_STEP", "RETURN", "Receivers"]
