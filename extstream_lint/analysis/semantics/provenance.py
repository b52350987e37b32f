"""Provenance: which streams were current while a value's autograd graph was computed.

Hazard 3 of ``shared/spec/hazards.md``: a node of the autograd graph runs its backward on the
stream that was current when its forward made it, and the root gradient is produced on the
stream current at ``backward()``. Where the two differ and one is external, the engine records
and waits events on it (X06/X07), and a forward under an external stream with the backward
outside it also aborts the process when the root gradient is freed (XST203).

So every value computed while some stream is current (a call of anything the analysis does not
know, arithmetic, a method of a tensor or of an unknown object, an attribute or element read
from such a value) carries a :class:`Made`: the set of external streams some part of its graph
was computed under, and whether some part was computed with no external stream current. A
derived value unions its operands' (its graph holds theirs); where control flow joins, a
stream met on one path only becomes a "may". Nothing here allocates when no external stream
is current and no operand carries one: code that never makes an external stream current
gets one shared :data:`PLAIN` fact.

Inside a summarised function the current stream is the caller's (a symbolic
:class:`.values.ExtStream`); a value computed there carries it, and :func:`substitute` puts
the caller's current stream in its place where the function is called. A parameter of the
function used as a backward root is a sink guarded by :data:`ROOT`: it is judged at each call
against what the caller passes.

Only the judgement of roots (:func:`judge`) and the lattice live here; the interpreter calls
:func:`derive` where a value is computed, and :mod:`.hazards` judges backward calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from ..abstract.atoms import Const, ExtStream, ParamRef
from ..abstract.callables import ParamCall
from ..abstract.made import MAX_STREAMS, NOGRAD, PLAIN, Made, join_made, stream_key, union
from ..abstract.values import Current, Value

__all__ = [
    "MAX_STREAMS", "NOGRAD", "PLAIN", "ROOT", "Made", "derive", "join_made", "judge", "made_of",
    "settled",
]  # fmt: skip

#: The guard kind of a sink on a parameter used as a backward root (:mod:`.sinks`).
ROOT = "backward root"


def _callers(stream: ExtStream | None) -> bool:
    """The summarised function's caller's current stream, unchanged."""
    param = None if stream is None else stream.param
    return param is not None and param.index == -1 and not param.path and not stream.also  # type: ignore[union-attr]


def callers_current(current: ExtStream | None) -> bool:
    """``current`` is the caller's current stream on every path (nothing made current)."""
    return _callers(current) and current.must  # type: ignore[union-attr]


def under(current: ExtStream | None) -> Made:
    """A value computed now. An external stream current on some paths only adds no "plain"
    part: a backward under the same maybe-current stream runs on the same paths."""
    if current is None:
        return PLAIN
    return Made((current,))


def derive(
    current: ExtStream | None, operands: Iterable[Value], records: bool = False
) -> Made | None:
    """What a computation from ``operands`` made under ``current`` carries, or None when
    nothing is known (no external stream current and no operand computed under one).

    An op records a node only if some input requires grad: when every operand is known to
    have no history (:data:`NOGRAD`; literals never require grad) the result has none either,
    whatever stream is current. ``records``: the callee may hold parameters of its own (an
    unknown ``model(x)``), so it may record whatever its arguments are.

    Under an external stream, an operand's "plain" part is not kept: inputs computed outside
    (data moved to the device, masks) make no graph nodes unless they require grad, and
    flagging every such forward would be noise. Outside, an operand's external streams are
    kept: its graph is part of the result's.
    """
    operands = list(operands)
    found = [made_of(value) for value in operands]
    if not records and _no_history(operands, found):
        return NOGRAD
    inputs = () if records else _param_inputs(operands, found)
    if not inputs:  # it records nodes whatever the caller passes: its data stays data
        found = _data(found)
    made = _combine(current, [m for m in found if m is not None and m.recorded])
    return replace(made, inputs=inputs) if inputs and made.recorded else made


def _param_inputs(operands: list[Value], found: list[Made | None]) -> tuple[ParamRef, ...]:
    """The parameters a computation is made from alone (with literals, tensors without
    history and values themselves made from parameters alone): it records nodes only if
    what the caller passes there requires grad. Empty when some operand may require grad
    whatever the caller passes (an unknown value, a leaf, a tensor with history)."""
    refs = _operand_params(zip(operands, found))
    return tuple(refs) if refs is not None and len(refs) <= MAX_STREAMS else ()


def _operand_params(
    pairs: Iterable[tuple[Value, Made | None]],
) -> dict[ParamRef, None] | None:
    """The parameters that decide whether operands (each a value and its provenance)
    require grad: none for literals and tensors without history, a parameter for itself,
    the conditions of a value made from parameters alone; ``None`` when some operand may
    require grad whatever the caller passes (an unknown value, a leaf, a tensor with
    history)."""
    refs: dict[ParamRef, None] = {}
    for value, made in pairs:
        if made is not None:
            if not made.recorded:
                continue
            conditions = _conditions(made)
            if not conditions:
                return None
            refs.update(dict.fromkeys(conditions))
        elif type(value) is not Const:
            param = getattr(value, "param", None)
            if not isinstance(param, ParamRef) or param.index < 0 or getattr(value, "also", ()):
                return None
            refs[param] = None
    return refs


def _data(found: list[Made | None]) -> list[Made | None]:
    """The operands of a computation that records nodes whatever the caller passes (an
    unknown module's forward, an op with a parameter or a tensor with history), without
    those computed from the function's own parameters alone (:attr:`.Made.inputs`): they
    bring nodes only if what the caller passes there requires grad, and an input a caller
    passes to a forward is data (its streams are not part of the loss's graph)."""
    return [m for m in found if m is None or not m.inputs]


def _no_history(operands: list[Value], found: list[Made | None]) -> bool:
    """Every operand is a literal or a tensor known to carry no history (and some is one)."""
    seen = False
    for value, made in zip(operands, found):
        if made is not None and not made.recorded:
            seen = True
        elif type(value) is not Const:
            return False
    return seen


def _only(current: ExtStream, found: list[Made]) -> tuple[ParamRef, ...] | None:
    """The common case without a union: every operand computed under ``current`` alone (or
    nothing), no plain part; the parameters they carry. None: a union is needed."""
    key = stream_key(current)
    params: tuple[ParamRef, ...] = ()
    for made in found:
        if made.plain:
            return None
        for stream in made.streams:
            if stream_key(stream) != key or (stream.must and not current.must):
                return None
        params += made.params
    return params


def _combine(current: ExtStream | None, found: list[Made]) -> Made:
    if current is not None and not found:
        return Made((current,))
    if current is not None:
        params = _only(current, found)
        if params is not None and not _callers(current):
            # the parameters were data to this forward; a pending call's result is part of it
            return Made((current,), params=_pending(params))
        if params is not None:
            return Made((current,), params=tuple(dict.fromkeys(params))[:MAX_STREAMS])
    if current is None:
        carried = [Made(m.streams, params=m.params) for m in found if m.streams or m.params]
        return union([PLAIN, *carried]) or PLAIN
    if _callers(current):  # nothing made current in this function: the caller's stream
        kept = [Made(m.streams, params=m.params) for m in found]
    else:
        # In a summarised function the caller's current stream and its parameters stand for
        # what was computed before the region: data to this forward, dropped alike.
        kept = [
            Made(tuple(s for s in m.streams if not _callers(s)), params=_pending(m.params))
            for m in found
        ]
    return union([Made((current,)), *kept]) or Made((current,))


def _pending(params: tuple[ParamRef, ...]) -> tuple[ParamRef, ...]:
    """The results of pending calls (:func:`_called`) among ``params``."""
    return tuple(dict.fromkeys(ref for ref in params if ref.index < -1))[:MAX_STREAMS]


def made_of(value: Value, depth: int = 0) -> Made | None:
    """The provenance a value carries: a tensor's, or for the symbolic result of a call of a
    function-valued parameter (``model(x)`` with ``model`` a parameter), the call's: computed
    under the stream current at it, from its arguments."""
    made = getattr(value, "made", None)
    if isinstance(made, Made):
        return made
    items = getattr(value, "items", None)
    if isinstance(items, tuple) and depth <= 3:  # a list or tuple of tensors (torch.stack)
        return union([m for m in (made_of(v, depth + 1) for v in items) if m is not None])
    param = getattr(value, "param", None)
    if param is None or depth > 3:
        return None
    refs = (param, *getattr(value, "also", ()))
    found = [_called(ref, depth) for ref in refs]
    if len(found) > 1:  # a pending result on some paths only: its estimate, kept a "may"
        found = [settled(made, depth) for made in found]
    if all(made is None for made in found):
        return None
    made = found[0]
    for other in found[1:]:  # ``loss`` from one call or another: each on some paths
        made = join_made(made, other)
    return made


def _called(ref: object, depth: int) -> Made | None:
    """What the recorded call behind a symbolic result (``.callables.result_index``) made:
    like a parameter's, whatever that call makes where the summary is applied (the caller's
    object decides: a held module whose ``forward`` runs in inference mode records nothing),
    and is :func:`settled` where the body itself is judged."""
    owner = getattr(ref, "owner", None)
    index = getattr(ref, "index", -1)
    if index >= 0:  # a parameter: whatever the caller passes
        return Made(params=(ref,))  # type: ignore[arg-type]
    call = _recorded(owner, index)
    if call is None:
        return None
    if call.grad_off:  # made in no-grad mode: no history (a callee that turns grad mode on
        return NOGRAD  # is seen where the call is applied, higher_order.apply_param_calls)
    return Made(params=(ref,))  # type: ignore[arg-type]


def _recorded(owner: object, index: int) -> ParamCall | None:
    """The call a summary recorded behind the symbolic result ``index``, or None."""
    if owner is None or index >= -1:
        return None
    calls = owner.summary.calls  # type: ignore[attr-defined]
    position = -2 - index
    return calls[position] if 0 <= position < len(calls) else None


def settled(made: Made | None, depth: int = 0) -> Made | None:
    """``made`` as the body that computed it judges it: each pending call's result in it
    computed under the stream current at that call, from its arguments (a parameter's
    module records nodes there, as far as the body can tell)."""
    if made is None or all(ref.index >= -1 for ref in made.params) or depth > 3:
        return made
    parts = [replace(made, params=tuple(ref for ref in made.params if ref.index >= -1))]
    for ref in made.params:
        if ref.index < -1:
            estimate = _estimate(_recorded(ref.owner, ref.index), depth + 1)
            if estimate is not None:
                parts.append(estimate)
    return union(parts)


def _estimate(call: ParamCall | None, depth: int) -> Made | None:
    """A recorded call's result computed under the stream current at it, from its arguments."""
    if call is None:
        return None
    if call.grad_off:
        return NOGRAD
    operands = [*call.positional, *(v for _, v in call.keywords)]
    found = [settled(m, depth) for m in _data([made_of(v, depth + 1) for v in operands])]
    return _combine(current_stream(call.current), [m for m in found if m is not None])


def current_stream(current: Current | None) -> ExtStream | None:
    """The current stream as a value (what ``torch.npu.current_stream()`` gives), named as
    it was made current: two readings of one region compare equal (:func:`same_stream`)."""
    if current is None:
        return None
    s = current.stream
    return replace(
        s, how="made current", origin=current.origin, current_of=current.label or s.current_of
    )


def same_stream(a: ExtStream, b: ExtStream) -> bool:
    """Two views of one current stream: the same parameter, or made current under one name."""
    if a.param is not None or b.param is not None:
        return a.param == b.param
    if a.origin is b.origin:
        return True
    return bool(a.current_of) and a.current_of == b.current_of


def substitute(
    made: Made, resolve: Callable[[ExtStream], Value], argument: Callable[[ParamRef], Value]
) -> Made | None:
    """``made`` in a caller's terms: each symbolic stream replaced by what ``resolve`` gives
    (the caller's current stream, an argument made current); one that is no external stream
    there (a managed stream, none) is a "plain" part. Each parameter in ``params`` brings
    the provenance of what the caller passes there (``argument``)."""
    inputs: tuple[ParamRef, ...] = ()
    records = not made.inputs  # recorded whatever the caller passes: its data stays data
    if made.inputs:
        passed_inputs = _passed_inputs(made.inputs, argument)
        if passed_inputs is None:
            return NOGRAD  # nothing the caller passes there requires grad: no node recorded
        inputs = passed_inputs
        made = replace(made, inputs=())
    result = _substituted(made, resolve, argument, records)
    if inputs and result is not None and result.recorded:
        return replace(result, inputs=inputs)
    return result


def _conditions(made: Made) -> tuple[ParamRef, ...]:
    """The parameters whose requiring grad decides whether ``made`` has nodes: its
    :attr:`.Made.inputs`, or a parameter's own value (whatever the caller passes); empty
    when it has nodes whatever the caller passes."""
    if made.inputs:
        return made.inputs
    if made.streams or made.plain or not made.params:
        return ()
    if all(isinstance(ref, ParamRef) and ref.index >= 0 for ref in made.params):
        return made.params
    return ()


def _passed_inputs(
    refs: tuple[ParamRef, ...], argument: Callable[[ParamRef], Value]
) -> tuple[ParamRef, ...] | None:
    """What the caller passes for a value's :attr:`.Made.inputs`: None when none of it
    requires grad or has history (literals, tensors known to have none); the caller's own
    parameters when it passes only those; else () (recorded whatever its caller passes)."""
    passed = [argument(ref) for ref in refs]
    outer = _operand_params((value, made_of(value)) for value in passed)
    if outer is None:
        return ()
    return tuple(outer)[:MAX_STREAMS] if outer else None


def _substituted(
    made: Made,
    resolve: Callable[[ExtStream], Value],
    argument: Callable[[ParamRef], Value],
    records: bool,
) -> Made | None:
    if not made.params and all(s.param is None for s in made.streams):
        return made
    parts = [Made((), made.plain, made.plain_must)]
    for ref in made.params:
        passed = made_of(argument(ref))
        if passed is not None and not (records and passed.inputs):
            parts.append(passed)
    for stream in made.streams:
        if stream.param is None:
            parts.append(Made((stream,)))
            continue
        actual = resolve(stream)
        if getattr(actual, "must", None) is not None and hasattr(actual, "param"):
            parts.append(Made((actual if stream.must else actual.weakened(),)))  # type: ignore[arg-type]
        else:
            parts.append(Made((), True, stream.must))
    return union(parts)


@dataclass(frozen=True)
class Crossing:
    """A backward root whose graph crosses the stream current at the backward.

    ``stream`` is the external stream the issue is about: where the forward ran (``outside``)
    or the one current at the backward (the reverse); ``must`` on every path.
    """

    stream: ExtStream
    outside: bool


def judge(made: Made, current: ExtStream | None) -> Crossing | None:
    """Hazard 3's table: a part computed under an external stream other than the current
    one, or a part computed with no external stream current while one is current."""
    for stream in made.streams:
        if current is None or not same_stream(stream, current):
            if current is not None and current.param is None and _callers(stream):
                # Forward on whatever the caller had current, backward under an external
                # stream this function made current: judged on that one, here.
                return Crossing(current if stream.must else current.weakened(), False)
            return Crossing(stream, True)
    if made.plain and current is not None:
        must = made.plain_must and current.must
        return Crossing(current if must else current.weakened(), False)
    return None


def named(crossing: Crossing) -> tuple[ExtStream, str | None]:
    """The stream a finding names, and its name: the region's stream where the forward ran
    ("computed on ExternalStream 'ext' (made current line 7)"), or the current one."""
    stream = crossing.stream
    if not crossing.outside:
        return stream, None
    plain = replace(stream, how="made current", current_of=None, nullable=False)
    return plain, stream.current_of or None
