"""The one routine that applies the flow-model table (:mod:`..semantics.flowmodels`).

A call is looked up once: by qualified name (:meth:`Flows.flow_call`), by method of an object
a holder row made or of an object the analysis does not know (:meth:`Flows.flow_method`),
or as a call of a callable a row made (a weak reference, ``operator``'s getters:
:meth:`Flows.flow_called`), or, for a builtin the module does not rebind, by its name
(``builtins.NAME`` rows, :mod:`.builtins`): each one dict or set lookup.
:meth:`Flows.apply_flow` then does what the row's kind says (the kinds over iterables, as
``zip`` and ``itertools`` give: :mod:`.library`).

Objects a row makes (a queue, a future, a weak reference, a getter) are instances of a class
made once per place in the file (the allocation site, as ``threading.local`` and
``ContextVar`` are): a shared holder keeps its contents on that class, so a ``put`` in one
thread is what a ``get`` in another reads; any other keeps them on the instance. A function a
row calls in another thread runs with no external stream current (a thread starts on its
default stream), one called later by an event loop too (what is current then is not known),
one called here with the caller's current stream.

A ``functools.singledispatch`` function is such an object too: its registrations and calls
are :mod:`.dispatch`'s.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef, Ref
from ..abstract.callables import ParamCall
from ..abstract.paths import symbolic
from ..abstract.state import State
from ..abstract.values import (
    ClassInfo,
    Instance,
    Partial,
    Seq,
    StreamCtx,
    Tensor,
    Value,
    join,
    join_all,
)
from ..semantics import flowmodels as fm
from ..semantics.devices import picked
from ..semantics.effects import method_effects
from ..semantics.hazards import tensor_modelled
from ..semantics.sites import Arg, CallSite
from ..source.syntax import dotted_name
from . import summaries as sm
from .core import is_symbolic, may_contain
from .higher_order import CALLABLE

#: The builtin factories of a ``defaultdict`` (a name the module does not rebind evaluates
#: to nothing): what each makes, an empty container the code then fills in place.
_EMPTY: dict[str, Value] = {"list": Seq(()), "set": Seq(()), "dict": Seq((), is_dict=True)}
#: Where an object a row made keeps what it holds (never an identifier: no clash).
CONTENTS = "<contents>"
_NAMES, _ARGS, _KEYWORDS = "<names>", "<args>", "<keywords>"
#: Rows whose objects are called: what calling one does.
_CALLED = frozenset({fm.CALLS_METHOD, fm.GETS_ATTRIBUTE, fm.GETS_ITEM})


class Flows:
    """Library calls, applied from the flow-model table."""

    def flow_call(
        self, qualname: str, site: CallSite, state: State, current: ExtStream | None
    ) -> tuple[bool, Value]:
        """A call of a modelled function or class: (whether it is one, its value)."""
        if qualname not in fm.FUNCTIONS:
            return False, None
        return True, self.apply_flow(fm.BY_CALLEE[qualname], None, site, state, current)

    def flow_method(
        self, receiver: Value, method: str, site: CallSite, state: State, current: ExtStream | None
    ) -> tuple[bool, Value]:
        """``receiver.method(...)`` on an object a holder row made, or (``*.method`` rows) on
        an object the analysis does not know."""
        if isinstance(receiver, Instance):
            model = fm.method_model(receiver.cls.name, method)
        elif (receiver is None or is_symbolic(receiver)) and method in fm.ANY_RECEIVER:
            model = fm.BY_CALLEE[f"*.{method}"]
        else:
            return False, None
        if model is None:
            return False, None
        return True, self.apply_flow(model, receiver, site, state, current)

    def flow_called(
        self, callee: Instance, site: CallSite, state: State, current: ExtStream | None
    ) -> tuple[bool, Value]:
        """``obj(...)`` where ``obj`` is a weak reference or one of ``operator``'s callables."""
        made = fm.BY_CALLEE.get(callee.cls.name)
        if made is not None and made.kind == fm.DISPATCHER:
            return True, self.dispatch(callee, site, state, current)
        if made is not None and made.kind == fm.REGISTERS:  # @f.register, @f.register(T)
            return True, self.registrar_call(callee, site, state)
        if made is not None and made.kind in _CALLED:
            return True, self._apply_callable(made.kind, callee, site, state, current)
        return self.flow_method(callee, "__call__", site, state, current)

    def flow_decorator(self, value: Value) -> bool:
        """A decorator the table models (``functools.singledispatch``, ``f.register``)."""
        if isinstance(value, Ref):
            model = fm.BY_CALLEE.get(value.qualname)
            return model is not None and model.kind == fm.DISPATCHER
        return isinstance(value, Instance) and value.cls.name in fm.BY_CALLEE

    @staticmethod
    def loaded_or(method: str, site: CallSite, made: Value, yielded: Value) -> Value:
        """``obj.m()`` on a parameter: the call's own result (``made``, resolved where the
        caller's object is known) or what the method's name yields as a tensor method. A
        holder's load with no positional argument (``q.get()``, ``fut.result()``: no
        tensor method, nor ``dict.get``, is called so) is its result."""
        if yielded is None:
            return made
        if method in fm.LOAD_METHODS and made is not None and not site.positional:
            return made
        if made is not None and not tensor_modelled(method) and _only_computed(yielded):
            # ``m.stream()``, ``p.a.current()``: whatever the caller's object returns there
            # (its class's method); "computed now" where it has none (summaries.py)
            return made
        return yielded

    def flow_recorded(
        self, call: ParamCall, callee: Value, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> Value:
        """A call a summary recorded on a parameter (``q.get()``, ``ref()``, ``getter(x)``),
        made where the caller passes an object a row made: that row, with the caller's
        values. ``None`` (nothing done) for anything else."""
        name: str | None = None
        if isinstance(callee, Instance) and callee.cls.name in fm.BY_CALLEE:
            receiver: Value = callee
        elif callee is None and isinstance(call.callee, ExtStream) and call.callee.param:
            ref = call.callee.param
            if not ref.path or ref.path[-1].startswith("["):
                return None
            name = ref.path[-1]
            owner = symbolic(ParamRef(ref.owner, ref.index, ref.path[:-1]))
            receiver = sm.substitute(owner, binding)
            if isinstance(receiver, Instance) and name == "parameters":  # a helper's device_of(m)
                return self.module_parameters(receiver)  # type: ignore[attr-defined]
            if type(receiver) is Seq and receiver.is_dict and name == "get" and call.positional:
                return _got(receiver, call, binding)  # a helper's links.get(rank)
            if not isinstance(receiver, Instance) or receiver.cls.name not in fm.HOLDERS:
                return None
        else:
            return None
        site = self._recorded_site(call, node, binding)
        current = self._recorded_current(call, binding)
        if name is None:
            return self.flow_called(receiver, site, state, current)[1]  # type: ignore[arg-type]
        return self.flow_method(receiver, name, site, state, current)[1]

    # --- the kinds --------------------------------------------------------------------------

    def apply_flow(
        self,
        model: fm.FlowModel,
        receiver: Value,
        site: CallSite,
        state: State,
        current: ExtStream | None,
    ) -> Value:
        """What the call ``site`` does, by ``model``'s kind."""
        kind = model.kind
        if model.key is not None:  # sorted(xs, key=f), filter(f, xs): f on an element
            self.call_key(model, site, state, current)
        if kind in fm.ITERABLE_KINDS:  # zip, list, itertools... (library.py)
            return self.iterable_flow(model, site, state, current)
        given = site.arg(model.arg, model.keyword) if model.arg is not None else None
        if given is None and model.keyword is not None:
            given = site.keywords.get(model.keyword)
        value = given.value if given is not None else None
        if kind == fm.RETURNS:
            return value
        if kind == fm.BINDS:  # functools.partial(f, *args, **kwargs)
            if given is None or not site.positional:
                return None
            rest, keywords = tuple(site.positional[1:]), tuple(site.keywords.items())
            return Partial(value, rest, keywords, site.node, given.text)
        if kind == fm.REPLACES:  # dataclasses.replace(obj, **changes)
            return self.replaced(value, site)
        if kind == fm.ENTERS:  # entering makes nothing current, and gives what it was given
            return None if value is None else StreamCtx(None, "", value, keeps_current=True)
        if kind == fm.ELEMENTS:
            if model.unless is not None and (
                site.star_at is not None or site.arg(*model.unless) is not None
            ):
                return None  # accumulate(xs, f): what f returns
            return None if given is None else may_contain([self.element_of(value)])
        if kind == fm.HOLDER:
            return self._holder(model, site, value)
        if kind == fm.WORKERS:  # ThreadPoolExecutor(initializer=f, initargs=(s,))
            return self._workers(model, site, state, value)
        if kind == fm.STORES:
            if isinstance(receiver, Instance) and given is not None:
                self._store(receiver.cls, value)
                if receiver.param is None and isinstance(site.node.func, cst.Attribute):
                    where = site.node.func.value  # var.set(s): an effect of the call
                    self.note_rebound(receiver.cls, CONTENTS, value, where, state)
                self._store_through(site, state, value)
            return None
        if kind == fm.LOADS:
            held, through = _held(receiver), self._held_through(site, state)
            held = through if held is None else held if through is None else join(held, through)
            return join(held, value) if given is not None else held
        if kind == fm.CALLS:
            if model.runs != fm.HERE:  # a new thread starts on its default stream; a pool's
                held = _held(receiver)  # worker on what its initializer left current
                current = held if model.runs == fm.THREAD and isinstance(held, ExtStream) else None
            return self._calls(model, site, state, current, value)
        if kind == fm.MAPPING_VIEW:  # batch.items() of a parameter: batch[v], by path
            held = sm.contents(receiver) if is_symbolic(receiver) and not site.positional else None
            if held is None:
                return None
            return Seq((Seq((None, held)),)) if model.callee.endswith("items") else Seq((held,))
        if kind == fm.FOLDS:
            return self._reduce(site, state, current)
        if kind in _CALLED:
            return self._callable(model, site)
        if kind == fm.DICT:
            if site.positional or site.keywords:
                return self._make_dict(site)
            return Seq((), is_dict=True)
        if kind == fm.DEFAULT_DICT:
            return self._default_dict(site, state, value)
        if kind == fm.CHAIN_MAP:
            return _chain_map([arg.value for arg in site.positional])
        if kind == fm.ATTRIBUTES:
            return self.object_call(model.callee, site)
        if kind == fm.DISPATCHER:  # @functools.singledispatch def f(...)
            return self.made_dispatcher(site, model.callee, value)
        if kind == fm.REGISTERS:  # f.register(T, impl), f.register(T)
            return self.register(receiver, site.positional, state)
        return None

    def _site_class(self, site: CallSite, name: str) -> ClassInfo:
        """The class of the objects made at ``site`` (one per place in the file)."""
        cls = self._site_classes.get(site.node)
        if cls is None or cls.name != name:
            cls = self._site_classes[site.node] = ClassInfo(name)
            self._own_classes.add(id(cls))
        return cls

    def _holder(self, model: fm.FlowModel, site: CallSite, value: Value) -> Value:
        cls = self._site_class(site, model.callee)
        if model.shared:
            if value is not None:
                self._store(cls, value)
            return Instance(cls)
        return Instance(cls, ((CONTENTS, value),) if value is not None else ())

    def _workers(self, model: fm.FlowModel, site: CallSite, state: State, init: Value) -> Value:
        """A pool of worker threads: each starts with no external stream current and calls
        the initializer first, so what that leaves current is current for every function
        the pool runs there (kept as the pool's contents). Called here, once."""
        cls = self._site_class(site, model.callee)
        if not isinstance(init, CALLABLE) or site.star_at is not None or site.double_star:
            return Instance(cls)
        initargs = site.arg(model.extra[0], "initargs")
        args = Seq(()) if initargs is None else initargs.value
        if not isinstance(args, Seq) or args.key is not None or args.is_dict:
            return Instance(cls)  # initargs not known item by item
        worker = state.copy()
        worker.current = None
        call = CallSite(site.node, "initializer", [Arg(v, None) for v in args.items])
        self._call_value(init, site.node, call, worker, None)
        made = self._current(worker)
        return Instance(cls, ((CONTENTS, made),) if made is not None else ())

    def _holder_path(self, site: CallSite, state: State) -> ParamRef | None:
        """``self.jobs`` in ``self.jobs.put(s)``, where ``self`` is a parameter of the
        function being summarised: the holder as a path of that parameter. The object
        behind it is the one the caller's instance holds, so what a method puts there and
        what another method gets from it travel with each instance (``pool.add(s)`` then
        ``pool.work()``), not with every object made at the holder's place."""
        func = getattr(site.node, "func", None)
        owner = self._function
        if owner is None or not isinstance(func, cst.Attribute):
            return None
        dotted = dotted_name(func.value)
        if dotted is None or "." not in dotted:
            return None
        head, *steps = dotted.split(".")
        base = state.env.get(head)
        ref = base.param if isinstance(base, Instance) else None
        if ref is None or ref.owner is not owner or len(ref.path) + len(steps) >= 5:
            return None
        return ParamRef(owner, ref.index, (*ref.path, *steps, CONTENTS))

    def _store_through(self, site: CallSite, state: State, value: Value) -> None:
        """A parameter stored into a holder reached from another parameter: the summary
        says so (``add(self, s)``: ``self.jobs`` holds ``s``), applied where it is called."""
        if not (self.learning and is_symbolic(value)):
            return
        ref = self._holder_path(site, state)
        if ref is not None:
            self.learn_set_attr(self._function.summary, (ref.index, ref.path), value)

    def _held_through(self, site: CallSite, state: State) -> Value:
        """What a holder reached from a parameter holds: the caller's instance's."""
        ref = self._holder_path(site, state)
        return None if ref is None else symbolic(ref)

    def _store(self, cls: ClassInfo, value: Value) -> None:
        """``value`` flows into what every object of ``cls`` holds (learnt, as class
        attributes are; a parameter of the function being summarised is not a value)."""
        if self.learning and not is_symbolic(value):
            self.learn_attr(cls, CONTENTS, value)

    def _calls(
        self,
        model: fm.FlowModel,
        site: CallSite,
        state: State,
        current: ExtStream | None,
        func: Value,
    ) -> Value:
        """A row that calls its function argument: with which arguments, on which stream
        (an object with ``__call__`` is called as one, language reference 3.3.6)."""
        called = isinstance(func, Instance) and func.cls.method("__call__") is not None
        mapped = model.args == fm.MAPPED  # map(f, xs): f may be anything called (calls.py)
        if not isinstance(func, CALLABLE) and not called and not mapped:
            return None
        if model.args == fm.THREAD_ARGS:
            rest = _thread_args(site, model.extra)
        elif model.args == fm.EACH_ELEMENT or mapped:
            start = model.arg + 1  # type: ignore[operator]
            iterables = site.positional[start:]
            if not iterables or (site.star_at is not None and not mapped):
                return None
            if mapped:
                text = site.positional[model.arg].text or "map"  # type: ignore[index]
                elements = [_mapped_element(self.element_of, a.value) for a in iterables]
            else:
                text, elements = "call", [self.element_of(a.value) for a in iterables]
            rest = CallSite(site.node, text, [Arg(e, None) for e in elements])
        else:
            rest = _after(site, model.arg + 1)  # type: ignore[operator]
        made = self._call_value(func, site.node, rest, state, current)
        if model.result == fm.RESULT:
            return made
        if model.result == fm.RESULTS:
            return may_contain([made])
        if model.result == fm.FUTURE:
            cls = self._site_class(site, "concurrent.futures.Future")
            return Instance(cls, ((CONTENTS, made),) if made is not None else ())
        return None

    def _callable(self, model: fm.FlowModel, site: CallSite) -> Value:
        """``methodcaller("name", *args)``, ``attrgetter("a.b", ...)``, ``itemgetter(k, ...)``:
        an object that remembers its literal arguments, called later."""
        names = []
        for arg in site.positional:
            literal = arg.value.value if isinstance(arg.value, Const) else None
            if model.kind != fm.GETS_ITEM and not isinstance(literal, str):
                return None
            if model.kind == fm.GETS_ITEM and type(literal) not in (str, int):
                names.append(None)  # a key the analysis does not know: any item
            else:
                names.append(Const(literal))
            if model.kind == fm.CALLS_METHOD:
                break
        if not names or site.star_at is not None or site.double_star:
            return None
        fields: list[tuple[str, Value]] = [(_NAMES, Seq(tuple(names)))]
        if model.kind == fm.CALLS_METHOD:
            keywords = tuple((k, a.value) for k, a in site.keywords.items())
            fields.append((_ARGS, Seq(tuple(a.value for a in site.positional[1:]))))
            fields.append((_KEYWORDS, Seq((), keywords)))
        return Instance(self._site_class(site, model.callee), tuple(fields))

    def _apply_callable(
        self, kind: str, callee: Instance, site: CallSite, state: State, current: ExtStream | None
    ) -> Value:
        """Calling what :meth:`_callable` made, with the object as the first argument."""
        if not site.positional:
            return None
        target = site.positional[0].value
        names = callee.field(_NAMES)[1]
        if not isinstance(names, Seq):
            return None
        if kind == fm.CALLS_METHOD:
            name = names.items[0].value  # type: ignore[union-attr]
            args = callee.field(_ARGS)[1]
            keywords = callee.field(_KEYWORDS)[1]
            inner = CallSite(
                site.node,
                name,
                [Arg(v, None) for v in args.items] if isinstance(args, Seq) else [],
                {k: Arg(v, None) for k, v in keywords.keys} if isinstance(keywords, Seq) else {},  # type: ignore[misc]
            )
            return self.call_method_of(target, name, inner, state, current)
        read = [self._get(kind, target, name, site) for name in names.items]
        return read[0] if len(read) == 1 else Seq(tuple(read))

    def _get(self, kind: str, target: Value, name: Value, site: CallSite) -> Value:
        if kind == fm.GETS_ITEM:
            base = self._as_seq(target)
            if not isinstance(name, Const):
                return sm.contents(base)
            return sm.item(base, name.value)  # type: ignore[arg-type]
        value = target
        for part in str(name.value).split("."):  # type: ignore[union-attr]
            value = self._stream_method(value, part, None, site.node) or self._attribute_of(
                value, part, None
            )
        return value

    def call_method_of(
        self, receiver: Value, name: str, site: CallSite, state: State, current: ExtStream | None
    ) -> Value:
        """``receiver.name(...)`` made by a library callable (``methodcaller``), as the
        method call would be: the class's method, a parameter's (dispatched where it is
        known), a modelled holder's, or torch's semantics of that method."""
        if isinstance(receiver, Instance):
            method = receiver.cls.method(name)
            if method is not None:
                return self._call_function(
                    method, site.node, site, Arg(receiver, None), state, current
                )
            found, made = self.flow_method(receiver, name, site, state, current)
            return made if found else self.object_method(receiver, name, site, state, current)
        if is_symbolic(receiver):
            attr = sm.attribute(receiver, name)
            return self.record_param_call(attr, site, state, method=True)  # type: ignore[arg-type]
        if isinstance(receiver, Seq):
            return None
        issues, yielded = method_effects(site, name, receiver, None, current)
        for issue in issues:
            self._report(site.node, issue)
        return yielded

    def _default_dict(self, site: CallSite, state: State, factory: Value) -> Value:
        """``defaultdict(factory, ...)``: reading a missing key stores and gives what
        ``factory()`` returns (called here, silently: it runs where the key is read)."""
        made: Value = None
        empty = _EMPTY.get(site.positional[0].text or "") if site.positional else None
        if factory is None and empty is not None:  # defaultdict(list): the builtin, unbound
            made = empty
        elif isinstance(factory, CALLABLE):
            with self._silenced():
                no_args = CallSite(site.node, "call", [])
                made = self._call_value(factory, site.node, no_args, state, self._current(state))
        rest = CallSite(site.node, "dict", site.positional[1:], dict(site.keywords))
        base = self._make_dict(rest) if rest.positional or rest.keywords else None
        if not isinstance(base, Seq):
            base = Seq((), is_dict=True)
        if made is None:
            return base
        # keys stored keep their own values (d["a"] vs d["b"]); a key not stored reads made
        return Seq(base.items, base.keys, base.is_dict, base.key, default=made)


def _held(receiver: Value) -> Value:
    """What an object a holder row made holds: on its class when shared, else its own."""
    if not isinstance(receiver, Instance):
        return None
    found, value = receiver.field(CONTENTS)
    return value if found else receiver.cls.attrs.get(CONTENTS)


def _chain_map(maps: list[Value]) -> Value:
    """``ChainMap(a, b)``: a key is looked up in ``a`` first, then ``b``."""
    if not maps:
        return Seq((), is_dict=True)
    if all(isinstance(m, Seq) and m.keys for m in maps):
        keys: dict[object, Value] = {}
        for mapping in maps:
            for key, value in mapping.keys:  # type: ignore[union-attr]
                keys.setdefault(key, value)
        return Seq((join_all(list(keys.values())),), tuple(keys.items()))
    held = [sm.contents(m) for m in maps]
    return Seq((join_all(held),), is_dict=True)


def _thread_args(site: CallSite, positions: tuple[int, int]) -> CallSite:
    """``Thread(target=f, args=(...), kwargs={...})``: what ``f`` is called with."""
    given = site.arg(positions[0], "args")
    named = site.arg(positions[1], "kwargs") or site.keywords.get("kwds")  # a pool's apply
    args = given.value.items if given is not None and _exact(given.value) else ()  # type: ignore[union-attr]
    keys = named.value.keys if named is not None and isinstance(named.value, Seq) else ()
    rest = CallSite(site.node, "call", [Arg(v, None) for v in args])
    rest.keywords = {k: Arg(v, None) for k, v in keys if isinstance(k, str)}
    return rest


def _after(site: CallSite, start: int) -> CallSite:
    """The arguments after the function (its own arguments), keywords included."""
    rest = CallSite(site.node, "call", site.positional[start:], dict(site.keywords))
    if site.star_at is not None:
        rest.star_at, rest.spread = max(site.star_at - start, 0), site.spread
    rest.double_star, rest.kw_spread = site.double_star, site.kw_spread
    return rest


def _exact(value: Value) -> bool:
    return isinstance(value, Seq) and not value.keys and not value.is_dict


def _mapped_element(element_of: Callable[[Value], Value], value: Value) -> Value:
    """The element ``map`` surely calls its function on: a listed external stream if any
    (``map(f, [side, ext])`` calls ``f(ext)``), else any element."""
    if _exact(value):
        for item in value.items:  # type: ignore[union-attr]
            if isinstance(item, ExtStream) and item.must and item.param is None:
                return item
    return element_of(value)


def _only_computed(value: Value) -> bool:
    """A tensor result that says only "computed now, from parameters, under the caller's
    streams": nothing the body itself knows (no place, no external stream of its own)."""
    if not isinstance(value, Tensor) or value.place or value.index is not None:
        return False
    made = value.made
    if made is None:
        return True
    return not made.plain and all(s.param is not None for s in made.streams)


def _got(receiver: Seq, call: ParamCall, binding: sm.Binding) -> Value:
    """``links.get(rank[, default])`` a summary recorded on what the caller passed, a dict:
    the item under the key the call gives (its expression where the key is the helper's
    parameter: :func:`..semantics.devices.picked`), or the default."""
    key = call.positional[0]
    ref = key.param if type(key) is ExtStream and not key.also else None
    if ref is not None and ref.owner is binding.info and not ref.path and ref.index >= 0:
        arg = binding.args.get(ref.index)
    else:
        arg = Arg(sm.substitute(key, binding), None)
    got = picked(receiver, arg, 0)
    if len(call.positional) > 1:
        return join(got, sm.substitute(call.positional[1], binding))
    return got


__all__ = ["CONTENTS", "Flows"]
