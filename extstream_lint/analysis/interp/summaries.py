"""Per-function summaries: what calling a function does to the streams it is given.

Pysa and CodeQL's taint summaries are the model. While the interpreter analyses a function body,
each parameter (and the caller's current stream) is a *symbolic* external stream
(:class:`.values.ExtStream` with ``param`` set). A rule broken on a symbolic value is not a finding:
it becomes a :class:`Sink` of the function ("parameter 0 reaches synchronize() on line 17"). At each
call, the summary is applied to the real arguments: a sink whose argument is an external stream is
reported *at the call site*, naming the helper's line. A helper only ever given managed streams
therefore reports nothing, and recursion needs no special case: summaries are applied, never
inlined, and the interpreter repeats its learning pass until they stop growing.

The summary also says what the function returns or yields (in terms of its parameters), which
``self`` attributes it sets, and which stream is current when it returns or yields (``set_stream``
helpers, ``@contextmanager`` helpers, ``__enter__``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from ..abstract.atoms import CALLER_CURRENT, Const, ExtStream, GlobalSlot, ParamRef
from ..abstract.callables import Closure, ParamCall
from ..abstract.paths import (
    ENTERED,
    ITERATED,
    PARAM_KEY,
    SUBSCRIPTED,
    along,
    attribute,
    contents,
    element,
    item,
    key_position,
    literal_key,
    plan_of,
    symbolic,
)
from ..abstract.records import renewed
from ..abstract.sinks import Guard, ParamPath, Sink, SinkKey
from ..abstract.unions import StreamUnion
from ..abstract.values import (
    Bound,
    Current,
    FunctionInfo,
    Instance,
    Partial,
    Seq,
    StreamCtx,
    StreamMethod,
    Tensor,
    Value,
    is_caller_current,
    join,
)
from ..semantics import provenance as pv
from ..semantics.copies import HOST_ARG, PINNED_ARG
from ..semantics.devices import Sym, in_caller, picked
from ..semantics.effects import handle_matches
from ..semantics.sites import Arg, Issue

#: How a path step of a call on ``self`` kept for the receiver starts (:mod:`.receivers`).
SELF_CALL = "<self."


def caller_current(owner: FunctionInfo) -> Current:
    """The current stream a function body starts with: the caller's, whatever it is."""
    return Current(symbolic(ParamRef(owner, CALLER_CURRENT)), "", None)


def describe_target(ref: ParamRef) -> str:
    """How a message names a parameter path of the helper: "its argument 's'"."""
    owner = ref.owner
    if ref.index == CALLER_CURRENT:
        return "the current stream"
    if ref.index < CALLER_CURRENT:  # callables.result_index: ``fn(...)``'s result
        method = _method_text(ref)
        return f"what {method} returns" if method else "what the function it is given returns"
    params = owner.params if isinstance(owner, FunctionInfo) else ()
    name = params[ref.index][0] if 0 <= ref.index < len(params) else f"#{ref.index + 1}"
    kept = [i for i, s in enumerate(ref.path) if s.startswith(SELF_CALL)]
    if name == "self" and kept:  # a call on self kept for the receiver (:mod:`.receivers`)
        call = ref.path[kept[-1]][1:].split(">", 1)[0]  # "<self.m()>#1": "self.m()"
        after = [s for s in ref.path[kept[-1] + 1 :] if not s.startswith(("[", "<"))]
        return ".".join((call, *after)) if after else f"what {call} returns"
    # "[..]": an element or item; "<..>": what a holder (a queue) holds (:mod:`.flows`)
    steps = [s for s in ref.path if not s.startswith(("[", "<"))]
    dotted = ".".join((name, *steps))
    element = "an element of " if any(s.startswith(("[", "<")) for s in ref.path) else ""
    if name in ("self", "cls") and steps:
        return f"{element}{dotted}"
    return f"{element}its argument '{dotted}'"


def _method_text(ref: ParamRef) -> str | None:
    """``'jobs.get()'`` when the result ``ref`` stands for is a method call the helper
    makes on a parameter (a queue's ``get``, a future's ``result``: :mod:`.flows`)."""
    owner = ref.owner
    calls = owner.summary.calls if isinstance(owner, FunctionInfo) else ()
    position = -2 - ref.index
    callee = calls[position].callee if 0 <= position < len(calls) else None
    path = callee.param if isinstance(callee, ExtStream) else None
    if path is None or not path.path or path.path[-1].startswith("[") or path.index < 0:
        return None
    described = describe_target(path)
    if described.startswith(("self.", "cls.")):  # ``self.m.stream()``: no quotes there
        return f"'{described}()'"
    target = described.rsplit("'", 2)
    return f"'{target[1]}()'" if len(target) == 3 else None


def kept_call(value: Value) -> bool:
    """What a call on ``self`` returns, kept for the receiver (:mod:`.receivers`), or a
    path under it."""
    ref = value.param if isinstance(value, ExtStream) else None
    return ref is not None and any(step.startswith(SELF_CALL) for step in ref.path)


def local_path(ref: object, owner: FunctionInfo) -> ParamPath | None:
    """``ref`` as a path of ``owner``'s parameters, if it is one of them."""
    if isinstance(ref, ParamRef) and ref.owner is owner:
        return ref.index, ref.path
    return None


def sink_of(
    ref: ParamRef, issue: Issue, anchor: object, sink: Sink | None = None
) -> SinkKey | None:
    """The sink recorded when ``issue`` happens on a symbolic value (``ref``) of the function
    being summarised (``ref.owner``); ``sink`` is the called helper's sink it came through.
    ``None``: the issue depends on a value that is not this function's parameter (a
    closure's view of an outer one), which it cannot summarise.
    """
    owner = ref.owner
    assert isinstance(owner, FunctionInfo)
    guard: Guard | None = None
    if issue.guard is not None:
        where = local_path(issue.guard[0], owner)
        if where is None:
            return None
        guard = (*where, issue.guard[1])
    unless = local_path(issue.unless, owner)
    stream = issue.stream
    assert stream is not None
    target = describe_target(ref)
    if sink is None:
        sink = Sink(issue.code, issue.operation, anchor, target, stream.must, issue.implicit)
    else:
        sink = replace(sink, target=target, must=stream.must, implicit=issue.implicit)
    owner.summary.add_sink(
        (ref.index, ref.path, issue.code, guard), replace(sink, guard=guard, unless=unless)
    )
    return (ref.index, ref.path, issue.code, guard)


# --- applying a summary at a call ----------------------------------------------------------


@dataclass
class Binding:
    """The values a call gives a function's parameters (by index), and the caller's state."""

    info: FunctionInfo
    args: dict[int, Arg]
    current: ExtStream | None
    #: A closure's call: the bindings of the calls that made it, innermost first.
    outer: tuple[Binding, ...] = ()
    #: The caller's view of a module global a summarised body read (:class:`GlobalSlot`).
    view: Callable[[GlobalSlot], Value] | None = None

    def of(self, owner: object) -> Binding | None:
        """The binding of ``owner``'s parameters: this call's, or a captured one."""
        if owner is self.info:
            return self
        return next((b for b in self.outer if b.info is owner), None)


def resolve(ref: ParamRef, binding: Binding) -> tuple[Value, str | None]:
    """The caller's value for a parameter path, and its source text if it has one."""
    value: Value
    if type(ref.owner) is GlobalSlot:  # a global the body read: as the caller sees it
        value, text = (binding.view(ref.owner) if binding.view is not None else None), None
    elif ref.index == CALLER_CURRENT:
        value = binding.current
        text = None
    else:
        arg = binding.args.get(ref.index)
        if arg is None:
            if ref.index < CALLER_CURRENT:  # what a call of a parameter returned
                return _called_result(ref, binding), None
            return None, None
        value, text = arg.value, arg.text
    path = ref.path
    for position, step in enumerate(path):
        if type(value) is ExtStream and value.param is not None:
            # the caller's own parameter (most often): the rest of the path is its path
            plan = plan_of(path[position:] if position else path)
            if plan is not None:
                steps, plain = plan
                text = f"{text}.{'.'.join(path[position:])}" if text and plain else None
                return along(value, steps), text
        if step == ITERATED:
            value, text = element(value), None
        elif step == SUBSCRIPTED:
            value, text = contents(value), None
        elif step[:2] == PARAM_KEY:  # the item under the argument's key (a slice: no call)
            position, offset = key_position(step)
            value, text = picked(value, binding.args.get(position), offset), None
        elif step[:1] == "[":  # a literal key: "['ext']", "[0]"
            value, text = item(value, literal_key(step)), None
        elif step == ENTERED:  # async with cm as s: what entering the caller's cm gives
            value, text = (value.yielded if isinstance(value, StreamCtx) else None), None
        else:
            value = attribute(value, step)
            text = f"{text}.{step}" if text and step[:1] != "<" else None
    return value, text


def _called_result(ref: ParamRef, binding: Binding) -> Value:
    """``fn(x)`` in the helper, where the caller passed no function the analysis knows (a
    model, a loss module): a value computed under the stream current at that call, from
    its arguments, in the caller's terms."""
    owner = ref.owner
    calls = owner.summary.calls if isinstance(owner, FunctionInfo) else []
    position = -2 - ref.index
    if not 0 <= position < len(calls):
        return None
    call = calls[position]
    current = pv.current_stream(call.current)
    actual = substitute(current, binding, 1) if current is not None else None
    args = [substitute(v, binding, 1) for v in (*call.positional, *(v for _, v in call.keywords))]
    callee = call.callee
    if isinstance(callee, ExtStream) and callee.param is not None and callee.param.path:
        # ``obj.m(x)`` whose ``m`` the caller's object has no function for: computed from
        # the receiver too (``scaler.scale(loss)``), as the tensor rules read it
        ref = callee.param
        if not ref.path[-1].startswith("["):
            owner = ParamRef(ref.owner, ref.index, ref.path[:-1])
            args.append(substitute(symbolic(owner), binding, 1))
    made = pv.derive(actual if isinstance(actual, ExtStream) else None, args)
    return None if made is None else Tensor(made=made)


def _on_callers_device(stream: ExtStream, binding: Binding) -> ExtStream:
    """A stream with a device named by a parameter (``ExternalStream(h, device=device)``):
    the receiver's own one when the class-level join read in a method is it (its allocation
    put it on a device), else on the device the call passes (:func:`.devices.in_caller`)."""
    if not any(isinstance(index, Sym) for index in stream.device):  # type: ignore[union-attr]
        return stream
    receiver = binding.args.get(0)
    if receiver is not None and isinstance(receiver.value, Instance):
        for _, held in receiver.value.fields:
            if isinstance(held, ExtStream) and held.origin is stream.origin and held is not stream:
                return held
    return in_caller(stream, binding.info.params, binding.args)


def substitute(value: Value, binding: Binding, depth: int = 0) -> Value:
    """A summarised value (return, yield, attribute) in the caller's terms."""
    if value is None or type(value) is Const:  # most items of most containers
        return value
    if depth > 6:
        return None
    kind = type(value)  # exact kinds: no value class has a subclass
    if kind is ExtStream:
        if value.param is None:  # made in the call: on a device its parameter may give
            return _on_callers_device(value, binding) if value.device else value  # type: ignore[union-attr]
        if value.param.owner is not binding.info and type(value.param.owner) is not GlobalSlot:
            outer = binding.of(value.param.owner)
            return None if outer is None else substitute(value, outer, depth + 1)
        if not value.also:  # one parameter path: whatever the caller passed there
            actual, _ = resolve(value.param, binding)
        else:
            refs = value.refs()
            # s = a if flag else b: whichever the caller passes; of args[1] or kwargs['s'],
            # the one the caller passed
            present = [ref for ref in refs if not _absent(ref, binding)] or [refs[0]]
            actual, _ = resolve(present[0], binding)
            if len(present) > 1:
                actual = _either_all(actual, (resolve(o, binding)[0] for o in present[1:]))
        if type(actual) is ExtStream and not value.must:
            return actual.weakened()
        return actual
    if kind is Seq:
        items = tuple(substitute(item, binding, depth + 1) for item in value.items)
        keys = tuple((key, substitute(item, binding, depth + 1)) for key, item in value.keys)
        key = substitute(value.key, binding, depth + 1)
        unchanged = all(a is b for a, b in zip(items, value.items)) and all(
            a[1] is b[1] for a, b in zip(keys, value.keys)
        )
        if unchanged and key is value.key:
            return value  # nothing symbolic inside: the same container, no copy
        return renewed(value, items=items, keys=keys, key=key)
    if kind is StreamCtx:
        return renewed(
            value,
            stream=substitute(value.stream, binding, depth + 1),
            yielded=substitute(value.yielded, binding, depth + 1),
        )
    if kind is Partial:  # return functools.partial(_sync, s)
        return renewed(
            value,
            func=substitute(value.func, binding, depth + 1),
            args=tuple(_substitute_arg(arg, binding, depth) for arg in value.args),
            keywords=tuple((k, _substitute_arg(arg, binding, depth)) for k, arg in value.keywords),
        )
    if kind is Tensor and value.made is not None:
        # Computed on the helper's current stream or a parameter made current: the caller's.
        made = pv.substitute(
            value.made,
            lambda s: substitute(s, binding, depth + 1),
            lambda ref: substitute(symbolic(ref), binding, depth + 1),
        )
        return value if made is value.made else renewed(value, made=made)
    if kind is FunctionInfo and value.enclosing is not None:
        return closure_of(value, binding)
    if kind is Closure:  # captured values in the caller's terms
        captured = tuple(
            (owner, tuple((i, substitute(v, binding, depth + 1)) for i, v in values))
            for owner, values in value.captured
        )
        return renewed(value, captured=captured)
    if kind is ParamCall:
        return value
    if kind is Bound:  # return Holder(s).flush
        return renewed(value, receiver=substitute(value.receiver, binding, depth + 1))
    if kind is StreamMethod:  # return s.query: the caller's stream, unnamed
        receiver = substitute(value.receiver, binding, depth + 1)
        return renewed(value, receiver=receiver, text=None) if receiver != value.receiver else value
    if kind is Instance:
        if value.param is not None:
            if value.param.owner is not binding.info:
                return Instance(value.cls)
            actual, _ = resolve(value.param, binding)
            for name, held in value.fields if isinstance(actual, Instance) else ():  # replace()
                actual = actual.with_field(name, substitute(held, binding, depth + 1))
            return actual if isinstance(actual, Instance) else Instance(value.cls)
        if value.fields:
            fields = tuple((k, substitute(v, binding, depth + 1)) for k, v in value.fields)
            return renewed(value, fields=fields)
    return value


def closure_of(func: FunctionInfo, binding: Binding) -> Value:
    """``func``, defined in the body of a function this call (or a call it closes over)
    runs, with the values that call gives the parameters it may read (:class:`Closure`)."""
    chain = [b for b in (binding, *binding.outer) if _encloses(b.info, func)]
    if not chain:
        return func
    captured = tuple(
        (b.info, tuple((i, arg.value) for i, arg in sorted(b.args.items()))) for b in chain
    )
    return Closure(func, captured)


def _encloses(owner: FunctionInfo, func: FunctionInfo) -> bool:
    inner = func.enclosing
    for _ in range(16):
        if inner is None:
            return False
        if inner is owner:
            return True
        inner = inner.enclosing
    return False


def closure_binding(closure: Closure) -> tuple[Binding, ...]:
    """The captured bindings of a closure, for the call that runs it."""
    return tuple(
        Binding(owner, {i: Arg(v, None) for i, v in values}, None)
        for owner, values in closure.captured
    )


def _absent(ref: ParamRef, binding: Binding) -> bool:
    """The caller passed nothing there: no argument, or no such element of the tuple or
    dict it passed (``kwargs['s']`` when ``s`` went by position)."""
    if type(ref.owner) is GlobalSlot:  # a global's read: the caller's view has it
        return False
    arg = binding.args.get(ref.index) if ref.index != CALLER_CURRENT else None
    if arg is None:
        return ref.index != CALLER_CURRENT
    step = ref.path[0] if ref.path else ""
    if step[:1] != "[" or step in (ITERATED, SUBSCRIPTED) or step[:2] == PARAM_KEY:
        return False
    seq = arg.value
    if not isinstance(seq, Seq) or seq.is_dict:
        return False
    key = literal_key(step)
    if seq.keys or isinstance(key, str):
        return not any(known == key for known, _ in seq.keys)
    params = binding.info.params
    star = 0 <= ref.index < len(params) and params[ref.index][1] == "star"
    return star and isinstance(key, int) and not -len(seq.items) <= key < len(seq.items)


def _either(a: Value, b: Value) -> Value:
    """One of two parameter paths, whichever the caller filled: a function passed by
    position or by keyword to a forwarded ``*args, **kwargs`` is that function (a stream
    on one path only stays a "may", as :func:`.values.join` has it)."""
    if a is None and b is not None and not isinstance(b, ExtStream):
        return b
    if b is None and a is not None and not isinstance(a, ExtStream):
        return a
    return join(a, b)


def _either_all(first: Value, others: Iterator[Value]) -> Value:
    """``first`` and ``others`` folded by :func:`_either`, exactly, the caller's symbolic
    streams joined by one running union of their paths: a join per step cost a value that
    may be any of k paths k tuples of up to k paths, each hashed (30 on the stdlib)."""
    acc = first
    run: StreamUnion | None = None
    for other in others:
        if run is not None and _symbolic(other) and len(other.refs()) != len(run.refs):
            run.add(other)  # type: ignore[arg-type]
            continue
        if run is not None:
            acc, run = run.value(), None
        if (
            _symbolic(acc)
            and _symbolic(other)
            and len(other.refs()) != len(acc.refs())  # type: ignore[union-attr]
            and len(set(acc.refs())) == len(acc.refs())  # type: ignore[union-attr]
        ):
            run = StreamUnion(acc)  # type: ignore[arg-type]
            run.add(other)  # type: ignore[arg-type]
            continue
        acc = _either(acc, other)
    return acc if run is None else run.value()


def _symbolic(value: Value) -> bool:
    return isinstance(value, ExtStream) and value.param is not None


def _substitute_arg(arg: object, binding: Binding, depth: int) -> object:
    if isinstance(arg, Arg):
        return Arg(substitute(arg.value, binding, depth + 1), None)
    return arg


@dataclass(frozen=True)
class CallIssue(Issue):
    """A sink of a called helper reached by an external (or symbolic) value at a call:
    reported at the call, its message naming the helper's operation and line."""

    sink: Sink | None = None
    #: The called helper, as the call spells it.
    callee: str = ""


def call_issues(info: FunctionInfo, binding: Binding, callee: str) -> list[CallIssue]:
    """The helper's sinks that the caller's values reach."""
    issues = []
    for (index, path, code, _), sink in info.summary.sinks.items():
        actual, text = resolve(ParamRef(info, index, path), binding)
        if sink.guard is not None and sink.guard[2] == pv.ROOT:
            issues.extend(_root_issues(sink, actual, text, binding, callee))
            continue
        if not isinstance(actual, ExtStream):
            continue
        guard: tuple[object, str] | None = None
        if sink.guard is not None:
            g_index, g_path, kind = sink.guard
            handle, _ = resolve(ParamRef(info, g_index, g_path), binding)
            if isinstance(handle, ExtStream) and handle.param is not None:
                if actual.param is None and kind in (PINNED_ARG, HOST_ARG):
                    # A copy of the caller's own parameter on a stream external here: judged
                    # here, as a tensor of unknown memory (as :func:`.copies.by_parameter`
                    # judges the caller's own copy), not as if it were pinned.
                    if kind == PINNED_ARG:
                        continue
                else:
                    guard = (handle.param, kind)  # the caller's own parameter: its sink
            elif not handle_matches(kind, handle):
                continue
        unless: ParamRef | None = None
        if sink.unless is not None:
            other, _ = resolve(ParamRef(info, *sink.unless), binding)
            if isinstance(other, ExtStream):
                if other.param is None and other.must:
                    continue  # the earlier check raises: reported through its own sink
                unless = other.param if other.must else None
        if not sink.must:
            actual = actual.weakened()
        implicit = sink.implicit or (index == CALLER_CURRENT and not path)
        issues.append(
            CallIssue(
                code,
                sink.operation,
                actual,
                text,
                implicit,
                guard=guard,
                unless=unless,
                sink=sink,
                callee=callee,
            )
        )
    return issues


def _root_issues(
    sink: Sink, actual: Value, text: str | None, binding: Binding, callee: str
) -> list[CallIssue]:
    """A helper backwards its parameter on the caller's current stream: what the caller
    passes there crosses that stream (:func:`.provenance.judge`), or holds the caller's own
    parameters (sinks of the caller in turn)."""
    made = pv.settled(pv.made_of(actual))
    if made is None:
        return []
    issues = []
    if pv.callers_current(binding.current):
        for ref in made.params:
            guard = (ref, pv.ROOT)
            issues.append(
                CallIssue(
                    "XST203",
                    sink.operation,
                    symbolic(ref),
                    text,
                    True,
                    guard=guard,
                    sink=sink,
                    callee=callee,
                )
            )
    crossing = pv.judge(made, binding.current)
    if crossing is None:
        return issues
    stream, named = pv.named(crossing)
    if not sink.must:
        stream = stream.weakened()
    if crossing.outside:  # the same words as a backward in the caller's own body
        tail = " outside the stream of its argument, computed"
    else:
        tail = " of its argument, computed with no external stream current,"
    sink = replace(sink, target=tail)
    issues.append(
        CallIssue(
            "XST203",
            sink.operation,
            stream,
            named,
            not crossing.outside,
            sink=sink,
            callee=callee,
        )
    )
    return issues


def current_change(
    summary_current: Current | None, seen: bool, binding: Binding
) -> tuple[bool, Value, str]:
    """Whether returning from (or entering) the helper leaves another stream current.

    Returns (changed, stream, label). The body started with the caller's current stream
    (a symbolic value): still having it means nothing changed.
    """
    if not seen:
        return False, None, ""
    if summary_current is None:
        return True, None, ""
    stream = summary_current.stream
    ref = stream.param
    if is_caller_current(summary_current, binding.info):
        if stream.must or binding.current is None:
            return False, None, ""
        # The caller's stream on some paths only (another one was made current on the
        # others): it stays current, as a "may" (it keeps its own label and line).
        return True, binding.current.weakened(), ""
    actual = substitute(stream, binding)
    # The helper's own name for the stream ('s', 'self.s') means nothing where it is called:
    # unnamed, the message says "an ExternalStream (made current line N)" at the call.
    label = ""
    if ref is not None:
        value, text = resolve(ref, binding)
        label = text or label
        if isinstance(value, ExtStream):
            actual = value if stream.must else value.weakened()
        elif stream.must:
            actual = value
    return True, actual, label


def describe_call(callee: str, sink: Sink, where: str) -> str:
    """The operation part of a call-site message: what the helper does and where."""
    if sink.bound:  # poll() calls query() (bound line 8), and query() on ...
        bound = f"{sink.operation} (bound {where})"
        return f"{callee}() calls {bound}, and {sink.operation}" if callee else bound
    via = "".join(f" through {name}()" for name in sink.through)
    if sink.guard is not None and sink.guard[2] == pv.ROOT:  # a backward root (_root_issue)
        return f"{callee}() calls {sink.operation}{via} ({where}){sink.target}"
    if sink.implicit:
        return f"{callee}() calls {sink.operation}{via} ({where}), and {sink.operation}"
    target = f" on {sink.target}"
    return f"{callee}() calls {sink.operation}{target}{via} ({where}), and {sink.operation}"
