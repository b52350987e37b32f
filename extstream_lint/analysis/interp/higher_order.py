"""Higher-order code: function values, closures, decorators, and calls of a function-valued
parameter (issue 27, point 2).

A function body is summarised once, with symbolic parameters; a call in it of a value that
is a parameter (``fn(*args, **kwargs)``, ``key(s)``, a callback) cannot be judged there, so
the summary records it (:class:`..callables.ParamCall`: its arguments and the current stream
then, in the parameters' terms). Where the function is called with a function there, the
recorded call is made with the caller's values: the summary is specialised at the call that
passes the function (bounded call-site sensitivity, :data:`_MAX_DEPTH` calls deep). A nested
function returned by a call is a :class:`..callables.Closure` holding what that call gave
the enclosing function's parameters, so a decorator factory's wrapper knows its stream.

A decorator application is the call it is (``f = d(f)``, innermost first): a decorator the
project defines is applied, and its result is what the name binds when it is a function
value; a decorator the analysis does not follow (``functools.lru_cache``, ``torch.no_grad()``)
leaves the function as it is. The builtins that call a function they are given
(``sorted(key=)``, ``min``/``max``, ``filter``) and ``functools.reduce`` call it here; the
library functions that do (``threading.Thread(target=)``, ``Executor.submit``...) are rows
of the flow-model table (:mod:`.flows`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import libcst as cst

from ..abstract.atoms import ExtStream, ParamRef, Ref
from ..abstract.callables import (
    MAX_METHOD_CALLS,
    MAX_PARAM_CALLS,
    Closure,
    GlobalItem,
    ParamCall,
    result_index,
)
from ..abstract.choices import OneOf
from ..abstract.handles import GradMode
from ..abstract.state import State
from ..abstract.values import (
    Bound,
    ClassInfo,
    FunctionInfo,
    Instance,
    Partial,
    Seq,
    StreamMethod,
    Value,
    join,
)
from ..semantics import autograd as ag
from ..semantics.sites import Arg, CallSite
from . import summaries as sm
from .core import Scope
from .views import carries_stream

#: Values a call can run: the project's functions, closures, classes, partials, bound methods.
CALLABLE = (FunctionInfo, Closure, ClassInfo, Partial, Bound, StreamMethod, Ref, OneOf)

#: How deep recorded calls are made through one another (a callback given a callback...).
_MAX_DEPTH = 4


class HigherOrder:
    """Function values: closures, decorators, and calls of function-valued parameters."""

    _higher_order_depth = 0

    # --- late binding: a closure reads an enclosing name when it runs ---------------------

    def note_def(self, node: cst.FunctionDef, state: State, scope: Scope) -> None:
        """A function defined in a function body: it will read the enclosing names as they
        are when it is called. Its body runs at the end of the enclosing body, so a name
        is read as the join of every value bound to it after the ``def`` (``s = ext``,
        ``def flush(): s.synchronize()``, ``s = torch.npu.Stream()``, ``flush()`` is
        managed), or as it was at the ``def`` when nothing rebinds it."""
        if self._late_defs is None:
            self._late_defs, self._open_defs = {}, {}
        self._late_defs[node] = (dict(state.env), {}, self._passes)
        self._open_defs.setdefault(id(scope), set()).add(node)  # type: ignore[union-attr]

    def note_lambda(self, node: cst.Lambda, state: State, scope: Scope) -> dict[str, Value]:
        """A ``lambda`` in a function body, whose body is evaluated where it is made: the
        enclosing names bound after it in the previous pass (none in the first), which it
        reads instead of their values here; from here on, this pass's are noted."""
        late = self._late_defs.get(node) if self._late_defs else None  # type: ignore[call-overload]
        self.note_def(node, state, scope)  # type: ignore[arg-type]
        return late[1] if late is not None else {}

    def note_late_binding(
        self, name: str, value: Value, nodes: set[cst.FunctionDef] | None
    ) -> None:
        """``name`` of a scope is bound to ``value``: after the ``def`` of each of ``nodes``."""
        if not nodes:
            return
        for node in nodes:
            _, after, made_in = self._late_defs[node]  # type: ignore[index]
            if made_in == self._passes:  # not a def an earlier pass noted (not run yet now)
                after[name] = join(after[name], value) if name in after else value

    def note_write_through(self, scope: Scope, holder: Scope, name: str, value: Value) -> None:
        """The function of ``scope`` binds ``holder``'s ``name`` (``nonlocal``/``global``)."""
        where = self._definitions.get(scope.function) if scope.function is not None else None
        if where is None:
            return
        if self._writes_through is None:
            self._writes_through = {}
        writes = self._writes_through.setdefault(where[0], {})
        if name in writes and writes[name][0] is holder:
            value = join(writes[name][1], value)
        writes[name] = (holder, value)

    def apply_writes_through(self, info: FunctionInfo, state: State, binding: sm.Binding) -> None:
        """A call of ``info`` from the scope whose names it binds through ``nonlocal`` (or
        of a function binding ``global`` names, from code that has no local of that name):
        after it, those names hold what it bound."""
        where = self._definitions.get(info)
        writes = self._writes_through.get(where[0]) if where is not None else None  # type: ignore[union-attr]
        if not writes:
            return
        caller = self._definitions.get(self._function) if self._function is not None else None
        own = self._scopes.get(caller[0]) if caller is not None else None
        for name, (holder, value) in writes.items():
            if holder.kind == "module":  # a global: seen by any caller without a local
                applies = own is None or name not in own.local_names
                applies = applies or own.outer_names.get(name) is holder  # type: ignore[union-attr]
            else:  # a nonlocal: by the function whose variable it is
                applies = holder.function is self._function
            if applies:  # the value in the caller's terms (``nonlocal s; s = x``: its x)
                state.env[name] = sm.substitute(value, binding)
                state.forget_paths_under(name)

    def late_value(self, child: Scope, name: str) -> tuple[bool, Value]:
        """What the function of scope ``child`` reads as the enclosing ``name``."""
        where = self._definitions.get(child.function) if child.function is not None else None
        late = self._late_defs.get(where[0]) if where is not None else None  # type: ignore[union-attr]
        if late is None:
            return False, None
        at_def, after, _ = late
        if name in after:
            return True, after[name]
        if name in at_def:
            return True, at_def[name]
        return False, None

    def record_param_call(
        self, callee: ExtStream, site: CallSite, state: State, method: bool = False
    ) -> Value:
        """``fn(...)`` where ``fn`` is a parameter (or a captured one): a fact of the
        function being summarised, made at each of its calls that passes a function. Its
        value is what that call returns there (a symbolic value, :func:`.result_index`).
        ``method``: ``obj.m(...)`` on a parameter, dispatched by the class of what each
        call passes (``callee`` is the path ``obj.m``, a bound method there)."""
        info = self._function
        if info is None:
            return None
        calls = info.summary.calls
        crowded = method and self.learning and len(calls) >= MAX_METHOD_CALLS
        if crowded and sum(1 for call in calls if _method_call(call)) >= MAX_METHOD_CALLS:
            return None
        call = recorded_call(callee, site, state)
        if call not in calls:
            if not self.learning or len(calls) >= MAX_PARAM_CALLS:
                return None
            calls.append(call)
            info.summary.version += 1
        made = sm.symbolic(ParamRef(info, result_index(calls.index(call))))
        ref = callee.param if type(callee) is ExtStream else None
        owner = ref.owner if ref is not None else None
        thunk = not method and not site.positional and not site.keywords  # make(): no args
        if isinstance(owner, FunctionInfo) and owner is not info and thunk:
            # a closure calls a parameter of the function enclosing it with no arguments (a
            # decorator factory's ``make()`` in its wrapper): a call of that function's too, whose
            # result's sinks are its sinks ("may"), reported where it is given the
            # function, as the closure's sinks on its other parameters are
            outer = owner.summary.calls
            if call not in outer and self.learning and len(outer) < MAX_PARAM_CALLS:
                outer.append(call)
                owner.summary.version += 1
            if call in outer:
                made = sm.symbolic(ParamRef(owner, result_index(outer.index(call))))
        return made

    def apply_param_calls(
        self, info: FunctionInfo, node: cst.CSTNode, binding: sm.Binding, state: State
    ) -> None:
        """Make the calls ``info``'s body makes of function-valued parameters, with what this
        call gives them; their findings are reported here, at the call that passed them."""
        calls = info.summary.calls
        if not calls:
            return
        if self._higher_order_depth >= _MAX_DEPTH:
            if _cut_loses(calls, binding):
                self.cut_at("higher_order._MAX_DEPTH", node)  # said (driver/cuts.py)
            return
        self._higher_order_depth += 1
        try:
            for position, call in enumerate(list(calls)):
                if self._enclosing_call(call, info, binding):
                    continue
                if isinstance(call.callee, GlobalItem):  # REGISTRY[key](...) (registries.py)
                    callee = self.looked_up(call.callee, binding, state)
                    if call.callee.read:  # REGISTRY.get(key): the item, not called
                        binding.args[result_index(position)] = Arg(callee, None)
                        continue
                else:
                    callee = sm.substitute(call.callee, binding)
                called = isinstance(callee, Instance) and (
                    callee.cls.method("__call__") or self.module_forward(callee)
                )
                if not isinstance(callee, CALLABLE) and not _symbolic(callee) and not called:
                    # q.get(), ref(), getter(obj) on what the caller passed (flows.py); an
                    # object with __call__ is called as one (3.3.6)
                    made = self.flow_recorded(call, callee, node, binding, state)
                    if made is not None:
                        binding.args[result_index(position)] = Arg(made, None)
                    continue
                site = self._recorded_site(call, node, binding)
                current = self._recorded_current(call, binding)
                saved_current = state.current
                if _symbolic(callee) and current is not None and _made_current(call):
                    # the caller's own parameter (``self.model`` of a method calling a
                    # helper method): recorded in turn with the stream the helper made
                    # current around it, not the caller's
                    state.current = replace(call.current, stream=current)
                try:
                    made = self._call_in_mode(callee, node, site, state, current, call.grad_off)
                finally:
                    state.current = saved_current
                kept = self.take_grad_kept()  # the callee turns grad mode on (gradmode.py)
                if call.grad_off and not kept:
                    made = ag.cut(made)  # run in the body's no-grad mode: no history
                if made is not None:  # return fn(*args): what the wrapper returns
                    binding.args[result_index(position)] = Arg(made, None)
        finally:
            self._higher_order_depth -= 1

    def _call_in_mode(
        self,
        callee: Value,
        node: cst.CSTNode,
        site: CallSite,
        state: State,
        current: ExtStream | None,
        grad_off: bool,
    ) -> Value:
        """The call, in the no-grad mode of the body that made it (``grad_off``): a callee
        that is this caller's own parameter is recorded as made in no-grad mode too."""
        if not grad_off or ag.grad_off(state.env):
            return self._call_value(callee, node, site, state, current)
        saved = state.env.get(ag.GRAD_KEY)
        ag.set_mode(state.env, GradMode(False))
        try:
            return self._call_value(callee, node, site, state, current)
        finally:
            ag.restore_mode(state.env, saved)

    def _enclosing_call(self, call: ParamCall, info: FunctionInfo, binding: sm.Binding) -> bool:
        """A closure run in the body of the function that encloses it calls that function's
        parameter (``def body(): setup(); fn(*args)``, then ``body()`` or
        ``Thread(target=body)``): a call the enclosing function makes, in its own terms, with
        the stream current where the closure made it, on the paths where the closure runs (a
        "may", as a closure's sinks are). True when it is one (recorded there)."""
        outer = self._function
        ref = call.callee.param if _symbolic(call.callee) else None  # type: ignore[union-attr]
        if ref is None or ref.owner is not outer or outer is info or binding.of(outer) is not None:
            return False
        if not self.learning or not isinstance(outer, FunctionInfo):
            return True
        current = call.current
        if current is not None:
            current = replace(current, stream=current.stream.weakened())
        made = replace(call, current=current)
        calls = outer.summary.calls
        if made not in calls and len(calls) < MAX_PARAM_CALLS:
            calls.append(made)
            outer.summary.version += 1
        return True

    def _recorded_site(self, call: ParamCall, node: cst.CSTNode, binding: sm.Binding) -> CallSite:
        positional = [Arg(sm.substitute(v, binding), None) for v in call.positional]
        keywords = {k: Arg(sm.substitute(v, binding), None) for k, v in call.keywords}
        site = CallSite(node, "call", positional, keywords)  # type: ignore[arg-type]
        if call.star_at is not None:
            spread = sm.substitute(call.spread, binding)
            if _symbolic(call.spread) and _exact(spread) and call.star_at == len(positional):
                positional.extend(Arg(item, None) for item in spread.items)  # type: ignore[union-attr]
            else:
                site.star_at, site.spread = call.star_at, spread
        if call.double_star:
            spread = sm.substitute(call.kw_spread, binding)
            if _symbolic(call.kw_spread) and isinstance(spread, Seq) and not spread.items:
                pass  # nothing passed on
            elif _symbolic(call.kw_spread) and isinstance(spread, Seq) and spread.keys:
                for key, value in spread.keys:
                    keywords.setdefault(key, Arg(value, None))  # type: ignore[arg-type]
            else:
                site.double_star, site.kw_spread = True, spread
        return site

    @staticmethod
    def _recorded_current(call: ParamCall, binding: sm.Binding) -> ExtStream | None:
        """The current stream at the recorded call, in the caller's terms."""
        current = call.current
        if current is None:
            return None
        stream = sm.substitute(current.stream, binding)
        if not isinstance(stream, ExtStream):
            return None
        ref = current.stream.param
        if ref is not None and ref.index == sm.CALLER_CURRENT:
            return stream  # the caller's own current stream, as it is there
        return ExtStream(
            stream.must,
            "made current",
            current.origin,
            stream.noun,
            "",
            param=stream.param,
            also=stream.also,
            device=stream.device,
        )

    def call_closure(
        self,
        closure: Closure,
        node: cst.CSTNode,
        site: CallSite,
        receiver: Arg | None,
        state: State,
        current: ExtStream | None,
    ) -> Value:
        """Call a closure: its summary, with the captured values of its enclosing calls."""
        if receiver is not None:  # a decorated method: the wrapper gets ``self`` first
            site = CallSite(
                site.node,
                site.callee_text,
                [receiver, *site.positional],
                site.keywords,
                None if site.star_at is None else site.star_at + 1,
                site.double_star,
                site.spread,
                site.kw_spread,
            )
        return self._call_function(
            closure.func, node, site, None, state, current, sm.closure_binding(closure)
        )

    def decorate(
        self,
        node: cst.FunctionDef | cst.ClassDef,
        value: Value,
        decorators: Sequence[tuple[cst.Decorator, Value]],
        state: State,
    ) -> Value:
        """``@d`` over a definition: ``value = d(value)``, innermost first, for each
        decorator the project defines; the definition itself when a result is unknown."""
        for decorator, applied in reversed(decorators):
            modelled = self.flow_decorator(applied)  # @functools.singledispatch (flows.py)
            if not isinstance(applied, (FunctionInfo, Closure, Partial, Bound)) and not modelled:
                continue
            expression = decorator.decorator
            anchor = expression if isinstance(expression, cst.Call) else node
            site = CallSite(anchor, "call", [Arg(value, None)])  # type: ignore[arg-type]
            with self._silenced():
                if isinstance(applied, Ref):
                    result = self.flow_call(applied.qualname, site, state, None)[1]
                else:
                    result = self._call_value(applied, anchor, site, state, self._current(state))
            if isinstance(
                result, (FunctionInfo, Closure, ClassInfo, Partial, Bound)
            ) or self.flow_decorator(result):
                value = result
        return value

    def _reduce(self, site: CallSite, state: State, current: ExtStream | None) -> Value:
        """``functools.reduce(f, xs[, initial])``: ``f(accumulated, element)`` for each
        element in order where the elements are known (a literal list or tuple, up to
        :data:`_FOLD_LIMIT`), as Python folds them; otherwise once, with what the
        accumulator and an element may be. Its value is the last call's (the start, or the
        one element, when nothing is folded)."""
        if len(site.positional) < 2:
            return None
        func, items = site.positional[0].value, site.positional[1].value
        if not isinstance(func, CALLABLE):
            return None
        has_start = len(site.positional) > 2
        given = site.positional[2].value if has_start else None
        if _exact(items) and len(items.items) <= _FOLD_LIMIT:  # type: ignore[union-attr]
            elements = list(items.items)  # type: ignore[union-attr]
            accumulated = given if has_start or not elements else elements.pop(0)
            for element in elements:
                inner = CallSite(site.node, "call", [Arg(accumulated, None), Arg(element, None)])
                accumulated = self._call_value(func, site.node, inner, state, current)
            return accumulated
        element = self.element_of(items)
        start = join(given, element) if has_start else element
        inner = CallSite(site.node, "call", [Arg(start, None), Arg(element, None)])
        return join(start, self._call_value(func, site.node, inner, state, current))


#: The longest literal sequence ``functools.reduce`` is folded over element by element.
_FOLD_LIMIT = 16


def recorded_call(callee: Value, site: CallSite, state: State) -> ParamCall:
    """A call as a summary records it: the callee (``None``: resolved where the summary is
    applied), the arguments' values as spelt, spreads included, and the current stream."""
    return ParamCall(
        callee,
        tuple(arg.value for arg in site.positional),
        tuple((key, arg.value) for key, arg in site.keywords.items()),
        site.star_at,
        site.spread,
        site.double_star,
        site.kw_spread,
        state.current,
        ag.GRAD_KEY in state.env and ag.grad_off(state.env),
    )


def _made_current(call: ParamCall) -> bool:
    """The recorded call ran while its function had made a stream current itself (not the
    stream its caller had current, which is the caller's own state)."""
    current = call.current
    if current is None:
        return False
    ref = current.stream.param
    return ref is None or ref.index != sm.CALLER_CURRENT


def _symbolic(value: Value) -> bool:
    return isinstance(value, ExtStream) and value.param is not None


def _exact(value: Value) -> bool:
    return isinstance(value, Seq) and not value.keys and not value.is_dict


def _method_call(call: ParamCall) -> bool:
    """A recorded ``obj.m(...)``: its callee is an attribute path of a parameter."""
    callee = call.callee
    if not isinstance(callee, ExtStream) or callee.param is None or not callee.param.path:
        return False
    return not callee.param.path[-1].startswith("[")


def _cut_loses(calls: Sequence[ParamCall], binding: sm.Binding) -> bool:
    """Calls not made past :data:`_MAX_DEPTH` that could lose a finding: a function the
    caller passed would be called, and a stream is among what it passes."""
    return any(
        not isinstance(call.callee, GlobalItem)
        and isinstance(sm.substitute(call.callee, binding), CALLABLE)
        for call in calls
    ) and any(carries_stream(arg.value) for arg in binding.args.values())
