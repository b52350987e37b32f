"""Functions and calls: defining a function, running its body, and applying it where called.

A ``def`` (or ``lambda``) makes a :class:`~..values.FunctionInfo` whose body runs after the
enclosing scope, from symbolic parameters, to learn its summary (:mod:`..summaries`). A call
evaluates its arguments into a :class:`~..sites.CallSite` and goes, by what the callee is,
to :mod:`..effects` for a torch API or a method of a stream, to the function's summary
(binding, sinks reached, attributes set, the stream it leaves current, what it returns),
to a class's ``__init__``, to bound methods, or to the flow-model table's rows. A refused
method read off a stream (``poll = ext.query``) or a tensor's copy (``fn = staging.to``) is
a value too, checked like the direct call and reported naming where it was bound."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..abstract.atoms import Const, ExtStream, ParamRef, Ref
from ..abstract.callables import Closure
from ..abstract.choices import OneOf
from ..abstract.handles import CapturingGraph, Event, Graph, Work
from ..abstract.state import State
from ..abstract.values import (
    NPU,
    Bound,
    ClassInfo,
    FunctionInfo,
    Instance,
    Module,
    Partial,
    Seq,
    StreamCtx,
    StreamMethod,
    Tensor,
    Value,
)
from ..abstract.widening import widened
from ..semantics.effects import (
    DEFAULT_CAPTURE_STREAM,
    REFUSED_METHODS,
    call_effects,
    canonical,
    method_effects,
    unbound_issues,
)
from ..semantics.hazards import called_hazards, computed, copy_method
from ..semantics.sites import Arg, CallSite, Issue
from ..source.syntax import decorator_name, dotted_name
from . import summaries as sm
from .binding import bind_arguments
from .builtins import BUILTINS
from .classes import Super
from .containers import CONTAINER_METHODS
from .core import Scope, is_symbolic, may_contain
from .datamodel import held_callable
from .gradmode import COPY_METHODS
from .objects import OBJECT_CALLS
from .strings import fold, folds


class Calls:
    """Function definitions and calls: binding arguments, applying summaries, torch APIs."""

    def exec_FunctionDef(self, node: cst.FunctionDef, state: State, scope: Scope) -> State:
        applied = [(d, self.eval(d.decorator, state, scope)) for d in node.decorators]
        params = node.params
        defaults = _defaults(params, lambda default: self.eval(default, state, scope))
        info = self._functions.get(node)
        if info is None:
            info = self._functions[node] = FunctionInfo(node.name.value)
            info.enclosing = self._function
            declared = self.annotation_value(node.returns, node) if node.returns else None
            if declared is not None:
                info.returns = ExtStream(
                    declared.must, f"returned by {info.name}()", node, declared.noun
                )
                info.returns_known = True
        cls = scope.cls if scope.kind == "class" else None
        names = {decorator_name(d.decorator) for d in node.decorators}
        info.decorators = frozenset(names)
        info.params = _param_kinds(params)
        if self.learning:
            info.defaults = defaults
            self.declared_return(node, info)  # def get() -> Pool (declared.py)
        if cls is not None:
            info.is_property = bool(names & {"property", "cached_property"})
        if applied:
            self.note_grad_decorators(node, applied)
        value = self.decorate(node, info, applied, state) if applied else info
        self.bind(node.name.value, value, state, scope)
        if cls is not None and self.learning and names & {"setter", "deleter"}:
            cls.accessors[("set" if "setter" in names else "delete", node.name.value)] = info
        elif cls is not None and self.learning:
            cls.methods[node.name.value] = info  # ``@x.setter`` keeps the getter
            if value is not info:  # a decorated method: what the class holds is the result
                cls.attrs[node.name.value] = value
        self._deferred.append((node, scope, cls))
        self._definitions[info] = (node, scope, cls)
        if scope.kind == "function":  # a closure: it reads the enclosing names late
            self.note_def(node, state, scope)
        return state

    def _run_function(
        self,
        node: cst.FunctionDef,
        parent: Scope,
        cls: ClassInfo | None,
        special: FunctionInfo | None = None,
        fixed: dict[int, Value] | None = None,
    ) -> None:
        """Run a body from symbolic parameters to learn its summary; ``special``: a copy
        learnt with the literal arguments ``fixed`` of one call (:mod:`.constants`); else
        the function itself, or a subclass's view of it (:mod:`.views`)."""
        if special is not None:
            info, key = special, node
        else:
            info, key = self.method_run(node, cls)
        scope = self._scope(key, "function", parent)  # type: ignore[arg-type]
        general, scope.function = scope.function, info
        self.note_method_class(info, cls)
        # The body starts with whatever the caller has: symbolic values (summaries.py).
        state = State({}, sm.caller_current(info))
        self.enter_body_mode(node, state, info)  # @torch.no_grad() (gradmode.py)
        params = node.params
        ordered = [*params.posonly_params, *params.params, *params.kwonly_params]
        decorators = info.decorators
        for index, param in enumerate(ordered):
            value = self.annotation_value(param.annotation, node) if param.annotation else None
            if value is None and param.annotation:  # pool: Pool, list[Pool] (declared.py)
                value = self.declared_param(param.annotation, info, index)
            if value is None:
                value = sm.symbolic(ParamRef(info, index))
            if fixed and index in fixed:
                value = fixed[index]  # a literal; for ``self``, an enum member (datamodel.py)
            elif index == 0 and cls is not None and "staticmethod" not in decorators:
                # ``__new__`` is bound to the class, as a classmethod is
                as_class = "classmethod" in decorators or info.name == "__new__"
                value = cls if as_class else Instance(cls, (), ParamRef(info, 0))
            self.bind(param.name.value, value, state, scope)
        for index in range(len(ordered), len(info.params)):  # *args, **kwargs
            rest = fixed.get(index) if fixed else None  # **kw of literal flags (constants.py)
            rest = sm.symbolic(ParamRef(info, index)) if rest is None else rest
            self.bind(info.params[index][0], rest, state, scope)
        body = (
            node.body.body
            if isinstance(node.body, (cst.IndentedBlock, cst.SimpleStatementSuite))
            else ()
        )
        if self.learning and info.predicate is None:
            self._learn_predicate(info, body, state.copy(), scope)
        # What callers read (whether a return was seen is the pass's own bookkeeping).
        returned_before = (info.returns, dict(info.summary.sets_attrs))
        outer, self._function = self._function, info
        outer_restores, self._restores = self._restores, []
        try:
            outer_deferred = self._deferred
            self._deferred = []
            end = self.exec_block(body, state, scope)
            if self.reporting and special is None:
                self.report_escaped_defaults(info)  # returned, stored (applying.py)
            if end is not None and self.learning:
                info.summary.note_exit(end.current, info)
                self.note_capture_exit(info, end)
            if self.learning and info.returns is not returned_before[0]:  # grown? widened
                info.returns = widened(returned_before[0], info.returns, info, self.recursive)
            learnt = (info.returns, info.summary.sets_attrs)
            if self.learning and learnt != returned_before:
                info.summary.version += 1  # callers that used it must look again
            pending, self._deferred = self._deferred, outer_deferred
        finally:
            self._function = outer
            self._restores = outer_restores
            if special is not None:
                scope.function = general
        if special is not None:
            return  # nested bodies are learnt with the function's own summary
        for inner, parent_scope, inner_cls in pending:
            self._run_function(inner, parent_scope, inner_cls)

    def _eval_lambda(self, node: cst.Lambda, state: State, scope: Scope) -> Value:
        params = node.params
        defaults = _defaults(params, lambda default: self.eval(default, state, scope))
        info = self._functions.get(node)  # type: ignore[call-overload]
        if info is None:
            info = self._functions[node] = FunctionInfo("<lambda>")  # type: ignore[index]
            info.params = _param_kinds(params)
            info.enclosing = self._function
        if self.learning:
            info.defaults = defaults
        # Runs later, when called: a summarised function like any other. It reads the
        # enclosing names late, as a nested ``def`` does (higher_order.py): as they are bound
        # after it, as the previous pass saw, else as they are here.
        inner = State(dict(state.env), sm.caller_current(info))
        if scope.kind == "function":
            inner.env.update(self.note_lambda(node, state, scope))
        for index, (name, _) in enumerate(info.params):
            inner.env[name] = sm.symbolic(ParamRef(info, index))
        outer, self._function = self._function, info
        try:
            value = self.eval(node.body, inner, scope)
        finally:
            self._function = outer
        if self.learning:
            returned_before = info.returns
            self._learn_return(info, value)
            if info.returns != returned_before:
                info.summary.version += 1
        elif self.reporting:
            self.report_escaped_defaults(info)  # stored, never called (applying.py)
        return info

    def _eval_call(self, node: cst.Call, state: State, scope: Scope) -> Value:
        func = node.func
        receiver: Value = None
        receiver_text: str | None = None
        method: str | None = None
        callee: Value
        bound: Arg | None = None
        if type(func) is cst.Attribute:
            receiver = self.eval(func.value, state, scope)
            receiver_text = dotted_name(func.value)
            method = func.attr.value
            if isinstance(receiver, Ref):
                callee = Ref(canonical(f"{receiver.qualname}.{method}", self.transfer_to_npu))
                method = None
            elif isinstance(receiver, Instance) or self.declared_receiver(receiver, method):
                receiver = self.declared_receiver(receiver, method) or receiver  # declared.py
                callee, method, bound = self.instance_callee(receiver, method, receiver_text)
            elif isinstance(receiver, ClassInfo):  # its metaclass's too (datamodel.py)
                callee, method, bound = self.class_callee(receiver, method, receiver_text)
            elif folds(receiver, method):  # spec.split(":") on a literal (strings.py)
                return fold(receiver, method, self._arguments(node, state, scope, method))  # type: ignore[arg-type]
            elif isinstance(receiver, Const):  # Kind.EXTERNAL.make(h) (datamodel.py)
                callee, method, bound = self.member_callee(receiver, method, receiver_text)
            elif isinstance(receiver, Module):  # streams.make_ext(p): a function, not a method
                callee = self._attribute_of(receiver, method, None)
                method = None
            elif method in _TAKE and is_symbolic(receiver) and not node.args:
                # self.items.popleft(): an element of what the caller's object holds there
                # (a list or deque another method appended a parameter to)
                self._arguments(node, state, scope, method)
                return sm.contents(receiver)
            elif method == "setdefault" and is_symbolic(receiver) and len(node.args) == 2:
                return self.callers_setdefault(receiver, node, state, scope)  # containers.py
            elif isinstance(receiver, Seq) and method in CONTAINER_METHODS:  # containers.py
                site = self._arguments(node, state, scope, method)
                return self.container_call(receiver, method, node, site, state, scope)
            elif isinstance(receiver, Super):
                callee = receiver.method(method)
                bound = Arg(receiver.instance, "self")
            elif isinstance(receiver, OneOf):  # impl.make(h), impl one of two modules
                callee, method = self.attribute_each(receiver, method, receiver_text), None
            else:
                callee = None
        else:
            callee = self.eval(func, state, scope)
            if isinstance(func, cst.Name) and func.value == "super" and callee is None:
                return self._super(scope, state, node)
        callee_text = dotted_name(func) or (method or _UNNAMED_CALLEE)
        site = self._arguments(node, state, scope, callee_text)
        if bound is not None and method is not None:  # self.m(...): receivers.py
            self.note_self_call(node, receiver, method, callee, site, state)
        if callee is None and method is None and isinstance(func, cst.Subscript):
            made = self.deferred_lookup_call(func, site, state, scope)  # registries.py
            if made is not None:
                return made
        hooked = self.class_hook(receiver, method, node, site, state) if callee is None else None
        if hooked is not None:  # object.__new__(cls), Pair._make(it) (datamodel.py)
            return hooked
        self._note_recorded_events(site, receiver if method == "record" else None)
        current = self._current(state)
        if method is not None:
            if isinstance(receiver, (Instance, Const)) and isinstance(
                callee, (FunctionInfo, Closure)
            ):
                issues, yielded = [], None  # the class's own wait()/query(): not torch's
            else:
                issues, yielded = method_effects(site, method, receiver, receiver_text, current)
                away = self.away_current(state) if current is None else None  # gradmode.py
                if away is not None and method in COPY_METHODS:  # the copies that touch its NPU
                    issues = method_effects(site, method, receiver, receiver_text, away)[0]
                self.note_in_place(method, func.value, yielded, state, scope, site, receiver)
            if method == "wait" and self._never_recorded(receiver):
                issues = []  # torch.Event.wait returns early: nothing to wait for (X07)
            for issue in issues:
                self._report(node, issue)
            if sm.kept_call(receiver):  # self._stream().m(): its refusals judged, no more
                return yielded
            if callee is None and (
                receiver is None or isinstance(receiver, Instance) or is_symbolic(receiver)
            ):
                # pool.submit(f, s), q.get(), var.set(s): the flow-model table (flows.py)
                found, made = self.flow_method(receiver, method, site, state, current)
                if found and (made is not None or yielded is None):
                    return made
            if callee is None and isinstance(receiver, Instance):
                made = self.module_method(receiver, method, site, func.value, state)  # gradmode
                if made is not None:  # model.parameters(), model.to(device)
                    return made
            held = held_callable(receiver, method)  # self.make(h), make held (datamodel.py)
            if (callee is None and is_symbolic(receiver)) or held:
                # obj.m(...) on a parameter: dispatched where the caller's object is known
                # (higher_order.py); as a tensor method, its result keeps the tensor facts
                attr = sm.attribute(receiver, method)
                made = self.record_param_call(attr, site, state, method=True)  # type: ignore[arg-type]
                return self.loaded_or(method, site, made, yielded)
            if yielded is not None:
                return yielded
            if method == "__enter__" and isinstance(receiver, StreamCtx):
                self._make_current(receiver.stream, receiver.label, node, state)
                return None
            if method == "enter_context" and site.positional:  # ExitStack
                entered = site.positional[0].value
                if isinstance(entered, StreamCtx):
                    if not entered.keeps_current:
                        self._make_current(entered.stream, entered.label, node, state)
                    return entered.yielded
                return None
            if isinstance(callee, FunctionInfo):
                made = self._call_function(callee, node, site, bound, state, current)
                if bound is None:
                    return made
                return self.self_call_result(node, receiver, method, callee, site, state, made)
            if isinstance(callee, Closure):
                return self.call_closure(callee, node, site, bound, state, current)
            if isinstance(callee, Instance):  # self.model(x): its __call__ or Module.forward
                return self._call_value(callee, node, site, state, current)
            made = None
            if isinstance(receiver, Instance) and callee is None:  # objects.py
                made = self.object_method(receiver, method, site, state, current)
            if made is None and isinstance(receiver, Instance) and _computes(callee):
                made = computed(  # self.loss_fn(logits, y) unknown: computed now, from its args
                    current,
                    [a.value for a in (*site.positional, *site.keywords.values())],
                    records=True,
                )
            return made
        if isinstance(callee, Ref):
            if callee.qualname == "typing.cast" and len(site.positional) == 2:  # declared.py
                return self.declared_cast(node, site.positional[1].value)
            return self._call_ref(callee.qualname, site, state, scope, current)
        if callee is None and type(func) is cst.Name and func.value in BUILTINS:
            if func.value == "setattr":  # setattr(obj, "name", v): obj.name = v (objects.py)
                return self.set_attribute(node, site, state, scope)
            return self._call_builtin(func.value, site, state, current)
        return self._call_value(callee, node, site, state, current)

    def _note_recorded_events(self, site: CallSite, recorded: Value) -> None:
        """``ev.record(...)``, and any call that is given a generic event (it may record
        it): from here on, in this file, that event may have been recorded."""
        values = [a.value for a in site.positional]
        if site.keywords:
            values.extend(a.value for a in site.keywords.values())
        if recorded is not None:
            values.append(recorded)
        for value in values:
            for item in value.items if type(value) is Seq else (value,):  # type: ignore[union-attr]
                if type(item) is Event and isinstance(item.generic_origin, cst.CSTNode):
                    self._recorded_events[id(item.generic_origin)] = item.generic_origin

    def _never_recorded(self, receiver: Value) -> bool:
        """A generic ``torch.Event`` made in this file that nothing records or is given."""
        origin = receiver.generic_origin if isinstance(receiver, Event) else None
        return isinstance(origin, cst.CSTNode) and id(origin) not in self._recorded_events

    def _call_value(
        self,
        callee: Value,
        node: cst.Call,
        site: CallSite,
        state: State,
        current: ExtStream | None,
    ) -> Value:
        """Call a value that is not a torch API: a project function, method, class."""
        bound_at: object = None
        if type(callee) is Partial:
            site = CallSite(
                node,
                site.callee_text,
                [*callee.args, *site.positional],  # type: ignore[list-item]
                {**dict(callee.keywords), **site.keywords},  # type: ignore[arg-type]
                None if site.star_at is None else site.star_at + len(callee.args),
                site.double_star,
                site.spread,
                site.kw_spread,
            )
            bound_at, text, callee = callee.at, callee.text, callee.func
            if type(callee) is Ref:  # partial(torch.npu.Stream.synchronize, ext)
                named = CallSite(node, text or callee.qualname, site.positional, site.keywords)
                issues = unbound_issues(named, callee.qualname)
                if issues:
                    self._report_bound(node, issues, bound_at, site.callee_text)
                    return None
                # partial(ExternalStream, device=0)(ptr): the constructor, called here
                outcome = call_effects(site, callee.qualname, current, self._default_capture)
                for issue in outcome.issues:
                    self._report(node, issue)
                return outcome.value
        if (kind := type(callee)) is StreamMethod:  # exact kinds: no value class has a subclass
            issues, yielded = method_effects(
                site, callee.method, callee.receiver, callee.text, current
            )
            self._report_bound(node, issues, callee.bound_at, site.callee_text)
            return yielded
        if kind is Ref:  # map(torch.npu.Stream.synchronize, streams)
            issues = unbound_issues(site, callee.qualname)
            if not issues:  # a torch function or class given as a value: called here
                outcome = call_effects(site, callee.qualname, current, self._default_capture)
                issues, made = outcome.issues, outcome.value
            else:
                made = None
            for issue in issues:
                self._report(node, issue)
            return made
        if kind is OneOf:  # f = a if c else b: each, joined (alternatives.py)
            return self.call_each(callee, node, site, state, current)
        if kind is Bound:
            receiver = Arg(callee.receiver, callee.text)
            return self._call_function(callee.func, node, site, receiver, state, current)
        if kind is FunctionInfo:
            return self._call_function(callee, node, site, None, state, current)
        if kind is Closure:
            return self.call_closure(callee, node, site, None, state, current)
        if is_symbolic(callee):  # fn(...) on a parameter: made where a function is passed
            made = self.record_param_call(callee, site, state)  # type: ignore[arg-type]
            if made is not None:
                return made
        if kind is ClassInfo:  # __init__, __post_init__ (objects.py)
            return self.construct(callee, node, site, state, current)
        if kind is Instance:  # obj(...): type(obj).__call__(obj, ...), by the MRO
            found, made = self.flow_called(callee, site, state, current)
            if found:  # weakref.ref(x)(), operator.itemgetter(k)(obj) (flows.py)
                return made
            dunder = callee.cls.method("__call__") or self.module_forward(callee)
            if dunder is not None:
                text = None if site.callee_text == _UNNAMED_CALLEE else site.callee_text
                receiver = Arg(callee, text)
                made = self._call_function(dunder, node, site, receiver, state, current)
                return self.module_result(callee, dunder, made, site, current)  # gradmode.py
        for issue in called_hazards(callee, site, current):
            self._report(node, issue)
        if _computes(callee):
            # ``model(x)``: unknown, but computed now (a tensor for the hazard rules).
            operands = [arg.value for arg in (*site.positional, *site.keywords.values())]
            result = computed(current, operands, records=True)
            if isinstance(callee, Tensor) and callee.place == NPU and isinstance(result, Tensor):
                # A module moved with ``.to(device)`` computes on that device.
                result = result.with_place(NPU, callee.index)
            return result
        return None

    def _stream_method(self, base: Value, name: str, text: str | None, node: object) -> Value:
        """``base.name`` kept as a value when it is a refused method of a stream or handle
        (``poll = ext.query``); ``None`` for anything else (the caller reads it as usual)."""
        refused = name in REFUSED_METHODS and (base is None or isinstance(base, _METHOD_RECEIVERS))
        if refused or (isinstance(base, Tensor) and copy_method(name)):  # fn = staging.to
            return StreamMethod(name, base, text, node)
        return None

    def _report_bound(
        self, node: cst.Call, issues: list[Issue], bound_at: object, callee_text: str
    ) -> None:
        """Report the issues of calling a method bound elsewhere, naming where it was bound."""
        named = "" if callee_text == _UNNAMED_CALLEE else callee_text
        for issue in issues:
            stream = issue.stream
            if bound_at is not None and isinstance(stream, ExtStream) and stream.param is None:
                sink = sm.Sink(
                    issue.code,
                    issue.operation,
                    bound_at,
                    "",
                    stream.must,
                    issue.implicit,
                    bound=True,
                )
                issue = sm.CallIssue(
                    issue.code,
                    issue.operation,
                    stream,
                    issue.text,
                    issue.implicit,
                    sink=sink,
                    callee=named,
                )
            self._report(node, issue)

    def _call_function(
        self,
        info: FunctionInfo,
        node: cst.CSTNode,
        site: CallSite | None,
        receiver: Arg | None,
        state: State,
        current: ExtStream | None,
        outer: tuple[sm.Binding, ...] = (),
    ) -> Value:
        """Apply ``info``'s summary at a call: report its sinks, return what it returns
        (``outer``: a closure's captured bindings)."""
        if info.summary.grad_on:  # its results keep their history in no-grad mode too
            self.grad_kept = True
        binding = bind_arguments(info, site, receiver)
        binding.current, binding.outer, binding.view = current, outer, self.global_view(state)
        special = self.specialised(info, binding)
        if special is not None:  # maybe_on(ext, False): learnt with the literal argument
            info = binding.info = special
        # ``make_syncer(s)()``, ``ops["sync"](s)``: no dotted name, so the function's own.
        named = site is not None and site.callee_text != _UNNAMED_CALLEE
        # the receiver's calls on self resolved by its class (receivers.py)
        binding = self._apply(info, node, binding, state, site.callee_text if named else info.name)
        # what the literal (or the caller's choice of subclass: a view) decides is this call's
        self.report_decided(special or info, node, site.callee_text if named else info.name)  # type: ignore[union-attr]
        if self._writes_through:  # ``nonlocal s; s = ...``: the caller's ``s`` changes
            self.apply_writes_through(info, state, binding)
        if info.summary.capture_seen:  # it assigns torch.npu.graph.default_capture_stream
            self._apply_capture(info.summary, binding, state)
        if "contextmanager" in info.decorators or "asynccontextmanager" in info.decorators:
            summary = info.summary
            changed, stream, label = sm.current_change(
                summary.yield_current, summary.yield_seen, binding
            )
            yielded = sm.substitute(summary.yielded, binding)
            return StreamCtx(stream, label, yielded, keeps_current=not changed)
        if info.summary.yield_seen:  # a generator: what it yields, one at a time
            return may_contain([sm.substitute(info.summary.yielded, binding)])
        changed, stream, label = sm.current_change(
            info.summary.exit_current, info.summary.exit_seen, binding
        )
        if changed:
            self._make_current(stream, label, node, state)
        overridden = self.override_return(info, node, binding, state)  # receivers.py
        returned = overridden if overridden is not None else self._returned(info, node, binding)
        return self.on_caller_device(returned, state)  # a stream made on this NPU (gradmode.py)

    def _call_ref(
        self,
        qualname: str,
        site: CallSite,
        state: State,
        scope: Scope,
        current: ExtStream | None,
    ) -> Value:
        """A call of a torch API (or any resolved name): :mod:`.effects` says what it does."""
        found, made = self.flow_call(qualname, site, state, current)
        if found:  # queue.Queue, itertools.chain, functools.partial... (the flow-model table)
            return made
        if qualname in OBJECT_CALLS:  # dataclasses.replace, namedtuple (objects.py)
            return self.object_call(qualname, site)
        if DEFAULT_CAPTURE_STREAM in state.env or scope.kind == "module":
            capture_default = state.env.get(DEFAULT_CAPTURE_STREAM)  # in program order
        else:  # a function may run after any module-level assignment
            capture_default = self._default_capture
        outcome = call_effects(site, qualname, current, capture_default)
        for issue in outcome.issues:
            self._report(site.node, issue)
        arg = outcome.makes_current
        if arg is not None:
            self._make_current(arg.value, arg.text or "", site.node, state)
        return self.after_torch_call(qualname, site, outcome.value, state)  # gradmode.py


def _param_kinds(params: cst.Parameters) -> tuple[tuple[str, str], ...]:
    """Parameters in order, then ``*args`` ("star") and ``**kwargs`` ("starstar")."""
    stars = (
        (star.name.value, kind)
        for star, kind in ((params.star_arg, "star"), (params.star_kwarg, "starstar"))
        if type(star) is cst.Param
    )
    return (
        *((p.name.value, "posonly") for p in params.posonly_params),
        *((p.name.value, "pos") for p in params.params),
        *((p.name.value, "kwonly") for p in params.kwonly_params),
        *stars,
    )


def _defaults(params: cst.Parameters, evaluate: Callable[[cst.CSTNode], Value]) -> dict[int, Value]:
    """Default values by parameter index (evaluated where the ``def`` runs)."""
    ordered = (*params.posonly_params, *params.params, *params.kwonly_params)
    found: dict[int, Value] = {}
    for index, param in enumerate(ordered):
        value = None if param.default is None else evaluate(param.default)
        if value is not None:
            found[index] = value
    return found


def _computes(callee: Value) -> bool:
    """Calling it computes a value the analysis cannot see into (a model, a loss module, an
    instance whose class defines no ``__call__`` the analysis follows): on the current stream."""
    return callee is None or isinstance(callee, (Tensor, ExtStream, Instance))


#: Receivers whose refused methods are kept as values when read (not called).
_METHOD_RECEIVERS = (ExtStream, Event, Graph, CapturingGraph, Work)

#: How a call is named when its callee has no dotted name (``f()()``, ``ops["k"]()``).
_UNNAMED_CALLEE = "call"
#: Methods that take an element out of a list or deque (``dict.pop`` needs a key).
_TAKE = frozenset({"pop", "popleft"})
