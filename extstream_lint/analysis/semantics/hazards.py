"""Calls torch_npu accepts but that fail later, judged from what is known about the tensors.

The rules of :mod:`.effects` are refusals: a call given (or running on) an external stream
raises at once, whatever its other arguments. The hazards of spec section 2.6 depend on the
tensors too: a ``non_blocking`` copy aborts the process later only if its host side is pinned
(XST201; unknown pinnedness is the opt-in XST211), a copy between two NPUs raises only if the
device indices differ (XST112), a backward raises only if the graph was computed under another
stream (XST203), and a graph replay aborts only if the graph used random numbers (XST202).

So tensors carry a few facts (:class:`.values.Tensor`): where their memory is and which stream
was current when they were computed. This module makes those facts at the calls that reveal
them (factories, ``pin_memory()``, ``.to(...)``, ``DataLoader(pin_memory=True)``, any other
call computed under a stream) and judges the hazard calls of :data:`contract.HAZARDS` with
them. Every API name comes from the contract table.
"""

from __future__ import annotations

from collections.abc import Mapping

from ... import contract as c
from ..abstract.atoms import Const, ExtStream, Ref
from ..abstract.handles import Graph, PinnedLoader
from ..abstract.tensors import FLAGGED
from ..abstract.values import HOST, NPU, PINNED, UNKNOWN, Seq, Tensor, Value
from . import autograd as ag
from . import provenance as pv
from .copies import AWAY, UNKNOWN_HOST, by_parameter, cross_device, elsewhere
from .devices import FOREIGN, device_value, literal, npu_index
from .devices import device as _read_device
from .sites import Arg, CallSite, Issue
from .tensor_api import TENSOR_NAMES

__all__ = [
    "called_hazards",
    "computed",
    "copy_method",
    "function_hazards",
    "method_hazards",
    "tensor_modelled",
]

_METHOD_ROWS: dict[str, c.Hazard] = {}
_FUNCTION_ROWS: dict[str, c.Hazard] = {}
for _row in c.HAZARDS:
    if _row.method:
        _METHOD_ROWS.setdefault(_row.attr, _row)
        for _name in _row.aliases:  # ``Tensor.cuda``: the NPU only after ``transfer_to_npu``
            _METHOD_ROWS.setdefault(_name.rpartition(".")[2], _row)
    else:
        for _name in _row.spellings:
            _FUNCTION_ROWS[_name] = _row

#: Host memory, pinned or not; and memory that may be pinned host memory.
_HOST = (HOST, PINNED, FLAGGED)
_MAYBE_PINNED = (UNKNOWN, FLAGGED)
#: Methods whose result shares the receiver's memory (a view, or the receiver itself).
_VIEWS = frozenset(c.TENSOR_VIEWS)
#: Methods that never yield a tensor fact (entering contexts is the interpreter's business).
_NOT_TENSORS = frozenset({"__enter__", "__exit__", "enter_context"})
#: What a batch (a dict of tensors a loader yields, read as one tensor) gives of its own
#: tensors: ``batch.items()``, ``batch.values()``, ``batch.get("x")`` are where it is.
_BATCH_READS = frozenset({"items", "values", "get", "pop"})


# --- devices (:mod:`.devices`) ------------------------------------------------------------


def _device(site: CallSite, arg: Arg | None) -> tuple[str, object] | None:
    """(place, NPU index) of a device argument of ``site``, or None when not visible."""
    value, node = literal(site, arg)
    return _read_device(value, node, site.cuda_is_npu)


def _truthy(arg: Arg | None) -> bool:
    """A literal true flag (``non_blocking=True``); a variable is not assumed true."""
    return arg is not None and isinstance(arg.value, Const) and bool(arg.value.value)


def _tensor(value: Value) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor()


def _made(current: ExtStream | None, operands: list[Value] | None = None) -> Tensor:
    """A value computed now from ``operands`` (:func:`.provenance.derive`)."""
    made = computed(current, operands or [])
    return made if isinstance(made, Tensor) else Tensor()


def _values(site: CallSite) -> list[Value]:
    """Every argument of a call, positional and keyword."""
    return [*(a.value for a in site.positional), *(a.value for a in site.keywords.values())]


def computed(current: ExtStream | None, operands: list[Value], records: bool = False) -> Value:
    """What a call of an unknown callable (``model(x)``) or an operator (``a * b``) gives: a
    value computed on the current stream from its operands (their graphs are part of its).
    ``None`` when every operand is a literal. ``records``: the callee may hold parameters
    (a model), so it records nodes whatever its operands (:func:`.provenance.derive`)."""
    if operands and all(isinstance(value, Const) for value in operands):
        return None
    made = pv.derive(current, operands, records)
    npu = [v for v in operands if isinstance(v, Tensor) and v.place == NPU]
    if not npu:
        return _PLAIN if made is pv.PLAIN else Tensor(made=made)
    # the NPU operands of one op are on one device: the first whose index is known says it
    index = next((v.index for v in npu if v.index is not None), None)
    return Tensor(NPU, index, made)


#: A value computed with no external stream current from nothing that was: shared.
_PLAIN = Tensor(made=pv.PLAIN)


def called_hazards(callee: Value, site: CallSite, current: ExtStream | None) -> list[Issue]:
    """Calling a value: a callable made by ``make_graphed_callables`` replays its graph."""
    if isinstance(callee, Graph) and current is not None:
        return [Issue("XST202", f"{site.callee_text}() replays a graph", current, None, True)]
    return []


# --- method calls --------------------------------------------------------------------------


def method_hazards(
    site: CallSite,
    method: str,
    receiver: Value,
    receiver_text: str | None,
    current: ExtStream | None,
) -> tuple[list[Issue], Value]:
    """``receiver.method(...)``: the hazards it is, and the tensor facts of its result.

    Only receivers that may be tensors count: unknown values, tensors, and a summarised
    function's parameters (whatever the caller passes). Returns ``([], None)`` otherwise.
    """
    row = _METHOD_ROWS.get(method)
    if row is not None and row.kind == c.REPLAY:  # a graph, known to be one (low precision)
        if isinstance(receiver, Graph) and current is not None:
            return [Issue("XST202", f"{site.callee_text}()", current, None, True)], None
        return [], None
    symbolic = isinstance(receiver, ExtStream) and receiver.param is not None
    if method in _NOT_TENSORS or not (receiver is None or isinstance(receiver, Tensor) or symbolic):
        return [], None
    here = _tensor(receiver)
    # Computed now from the receiver and the arguments (``scaler.scale(loss)``): a value
    # computed outside the external stream from one computed under it keeps those nodes.
    made = _made(current, [receiver, *_values(site)])
    result = _result_place(method, here, made)
    if method in ag.CUT_METHODS:  # detach(), item(): no history
        return [], ag.cut(result)
    if method in ag.LEAF_METHODS:  # requires_grad_(): a leaf that requires grad
        return [], ag.leaf(result)
    if row is None:
        return [], result
    if row.kind == c.BACKWARD:
        return _backward(site, [Arg(receiver, receiver_text)], current), result
    if row.kind == c.COPY_INTO:
        src = site.arg(row.position, row.keyword)
        source = src.value if src is not None else None
        # The host side is whichever is not known to be on an NPU (either, if neither is).
        sides = ((source, _tensor(source)), (receiver, here))
        hosts = [value for value, tensor in sides if tensor.place != NPU]
        return by_parameter(_copy_into(site, row, here, current), hosts, current), result
    if method != row.attr and not site.cuda_is_npu:
        # ``Tensor.cuda`` is CUDA's unless ``transfer_to_npu`` is imported: a CUDA tensor.
        return [], result.with_place(FOREIGN)
    issues, result = _copy_out(site, row, here, current, result)
    return by_parameter(issues, [receiver], current), result


def copy_method(method: str) -> bool:
    """A tensor method that copies between host and device (``to``, ``copy_``, ``npu``...):
    read as a value (``fn = staging.to``), it keeps its receiver for the call made later."""
    row = _METHOD_ROWS.get(method)
    return row is not None and row.kind not in (c.BACKWARD, c.REPLAY)


def tensor_modelled(method: str) -> bool:
    """A method name whose result the tensor rules read: one of ``torch.Tensor``'s, or a
    row of their own (a copy, a view, ``pin_memory``, ``detach``, a replay)."""
    return (
        method in TENSOR_NAMES
        or method in _METHOD_ROWS
        or method in _VIEWS
        or method == c.PIN_MEMORY
        or method in ag.CUT_METHODS
        or method in ag.LEAF_METHODS
    )


def _result_place(method: str, receiver: Tensor, made: Tensor) -> Tensor:
    """Where the result of a tensor method lives, before the copies decide theirs."""
    if method == c.PIN_MEMORY:
        return made.with_place(PINNED)
    if method in _VIEWS or method in _BATCH_READS:
        return made.with_place(receiver.place, receiver.index)
    if receiver.place == NPU:  # an op on an NPU tensor computes on that NPU
        return made.with_place(NPU, receiver.index)
    if receiver.place in _HOST:  # a new host tensor, pageable
        return made.with_place(HOST)
    return made


def _copy_out(
    site: CallSite, row: c.Hazard, source: Tensor, current: ExtStream | None, result: Tensor
) -> tuple[list[Issue], Tensor]:
    """``t.to(device | tensor, ..., non_blocking)`` and ``t.npu(device, non_blocking)``."""
    target_arg = site.arg(row.position, row.keyword)
    flag = site.keywords.get(c.NON_BLOCKING)
    if row.kind == c.COPY_DEVICE:
        target: tuple[str, object] | None = (NPU, None)
        if target_arg is not None:
            value, node = literal(site, target_arg)
            target = (NPU, npu_index(value, node, site.cuda_is_npu))
        if flag is None:
            flag = site.arg(row.flag_position, c.NON_BLOCKING)
    else:
        target = _device(site, target_arg) if target_arg is not None else None
        if flag is None and target_arg is not None:
            # to(device, dtype, non_blocking) / to(other, non_blocking)
            position = 1 if isinstance(target_arg.value, Tensor) else 2
            flag = site.arg(position, "")
    if target is None:
        return _unknown_target(site, source, target_arg, flag, current), result
    place, index = target
    if place == FOREIGN:  # ``"cuda"`` without ``transfer_to_npu``, ``"meta"``: not torch_npu's
        return [], result
    copy = _copy_result(source, place, index, _truthy(flag), result)
    if current is None:
        return [], copy
    op = site.callee_text
    if place == NPU and source.place != NPU and elsewhere(current, index):
        return [], copy  # host -> npu:k while the external stream is current elsewhere
    if place == HOST:
        if source.place in _HOST or not _truthy(flag):
            return [], copy
        if elsewhere(current, source.index):
            return [], copy  # npu:k -> host: the copy runs on npu:k's current stream
        what = "to the host (torch_npu pins the result)"
        return [_copy_issue("XST201", op, what, current)], copy
    if source.place == NPU:
        issue = cross_device(op, source.index, index, current)
        return ([issue] if issue else []), copy
    if not _truthy(flag):
        return [], copy
    if source.place == PINNED:
        return [_copy_issue("XST201", op, "from pinned memory", current)], copy
    if source.place in _MAYBE_PINNED:
        return [_copy_issue("XST211", op, UNKNOWN_HOST, current)], copy
    return [], copy


def _unknown_target(
    site: CallSite,
    source: Tensor,
    target_arg: Arg | None,
    flag: Arg | None,
    current: ExtStream | None,
) -> list[Issue]:
    """``t.to(device, non_blocking=True)`` with a device the analysis cannot read: a pinned
    tensor is moved to a device (to the host it would be no copy at all); a tensor of unknown
    place may be pinned. A dtype (``torch.float16``) moves nothing."""
    if current is None or not _truthy(flag) or target_arg is None or current.how == AWAY:
        return []  # away: an unread device may be the current NPU, whose stream is managed
    if isinstance(target_arg.value, (Ref, Tensor)):
        return []
    op = site.callee_text
    if source.place == PINNED:
        return [_copy_issue("XST201", op, "from pinned memory", current)]
    if source.place in _MAYBE_PINNED:
        return [_copy_issue("XST211", op, UNKNOWN_HOST, current)]
    return []


def _copy_result(
    source: Tensor, place: str, index: object, non_blocking: bool, made: Tensor
) -> Tensor:
    if place == HOST:
        if source.place in _HOST:
            return made.with_place(source.place)  # no copy: the tensor itself
        # torch_npu's non_blocking device-to-host copy allocates a pinned result.
        return made.with_place(PINNED if non_blocking else HOST)
    return made.with_place(place, index)


def _copy_into(
    site: CallSite, row: c.Hazard, dst: Tensor, current: ExtStream | None
) -> list[Issue]:
    """``dst.copy_(src, non_blocking)`` (tensors and untyped storages)."""
    if current is None:
        return []
    src_arg = site.arg(row.position, row.keyword)
    if src_arg is None:
        return []
    src = _tensor(src_arg.value)
    op = site.callee_text
    if dst.place == NPU and src.place == NPU:
        issue = cross_device(op, src.index, dst.index, current)
        if issue is not None:
            return [issue]
    if not _truthy(site.arg(row.flag_position, c.NON_BLOCKING)):
        return []
    npu_side = dst if dst.place == NPU else src if src.place == NPU else None
    if npu_side is not None and elsewhere(current, npu_side.index):
        return []  # the copy runs on the NPU side's device, where the stream is not current
    if npu_side is None and current.how == AWAY:
        return []  # on an unknown NPU, maybe the current one, whose stream is managed
    host = _HOST
    if src.place == PINNED and dst.place not in host:
        return [_copy_issue("XST201", op, "from pinned memory", current)]
    if dst.place == PINNED and src.place not in host:
        return [_copy_issue("XST201", op, "into pinned memory", current)]
    if HOST in (src.place, dst.place) or (src.place == NPU and dst.place == NPU):
        return []
    maybe = src.place in _MAYBE_PINNED and dst.place in _MAYBE_PINNED
    if src.place == NPU or dst.place == NPU or maybe:
        return [_copy_issue("XST211", op, UNKNOWN_HOST, current)]
    return []


def _copy_issue(code: str, op: str, what: str, current: ExtStream) -> Issue:
    return Issue(code, f"{op}(..., non_blocking=True) {what}", current, None, True)


# --- autograd ------------------------------------------------------------------------------


def _roots(value: Value) -> list[Value]:
    """The values ``backward`` starts from: one, or each of a list or tuple of them."""
    if isinstance(value, Seq) and not value.keys and not value.is_dict:
        return list(value.items)
    return [value]


def _backward(site: CallSite, roots: list[Arg], current: ExtStream | None) -> list[Issue]:
    op = site.callee_text
    issues: list[Issue] = []
    for arg in roots:
        for root in _roots(arg.value):
            named = f"'{arg.text}'" if arg.text and root is arg.value else "its root"
            made = pv.settled(pv.made_of(root))
            if made is None:
                continue
            if made.params and pv.callers_current(current):
                # A parameter's graph backwarded on the caller's current stream: a sink of
                # the helper, judged at each call with what the caller passes.
                for ref in made.params:
                    stream = ExtStream(True, "passed", None, param=ref)
                    issues.append(
                        Issue("XST203", f"{op}()", stream, arg.text, True, guard=(ref, pv.ROOT))
                    )
            crossing = pv.judge(made, current)
            if crossing is not None:
                return [*issues, _crossing_issue(op, named, crossing)]
    return issues


def _crossing_issue(op: str, named: str, crossing: pv.Crossing) -> Issue:
    """The XST203 finding for a root whose graph crosses the current stream."""
    stream, text = pv.named(crossing)
    if crossing.outside:  # forward under an external stream, backward outside it
        return Issue("XST203", f"{op}() outside the stream of {named}, computed", stream, text)
    text = f"{op}() of {named}, computed with no external stream current,"
    return Issue("XST203", text, stream, None, True)


# --- function calls ------------------------------------------------------------------------


def function_hazards(
    site: CallSite, qualname: str, current: ExtStream | None
) -> tuple[list[Issue], Value] | None:
    """A call of a torch function or class by canonical name, or None if it is not one."""
    row = _FUNCTION_ROWS.get(qualname)
    if row is not None:
        root = site.arg(row.position, row.keyword)
        return (_backward(site, [root], current) if root is not None else []), None
    if qualname == c.GRAPHED_CALLABLES:  # calling what it returns replays a graph
        callables = site.arg(0, "callables")
        if callables is not None and isinstance(callables.value, Seq):
            return [], Seq(tuple(Graph() for _ in callables.value.items))
        return [], Graph()
    if qualname == c.DEVICE_CLASS:
        return [], device_value(site)
    mode = ag.grad_mode(site, qualname)
    if mode is not None:
        return [], mode
    if qualname in ag.PARAMETERS:  # nn.Parameter(t): a leaf that requires grad
        data, flag = site.arg(0, "data"), site.arg(1, "requires_grad")
        leaf = ag.leaf(data.value if data is not None else None)
        frozen = flag is not None and isinstance(flag.value, Const) and not flag.value.value
        return [], ag.cut(leaf) if frozen else leaf
    if qualname in c.PINNING_LOADERS:
        return [], PinnedLoader() if _truthy(site.keywords.get(c.PIN_MEMORY)) else None
    if not qualname.startswith(c.TENSOR_MODULE):
        return None
    name = qualname[len(c.TENSOR_MODULE) :]
    # ``torch.stack(losses)``, ``F.cross_entropy(logits, y)``: their graphs are the result's;
    # a factory's arguments make no graph (``zeros_like(loss)`` is a new leaf).
    # A factory's result is a leaf: it has no history unless it is made to require grad.
    fresh = name in c.HOST_FACTORIES or name in c.LIKE_FACTORIES
    made = _made(current, _values(site)) if not fresh else _factory(site)
    pin = site.keywords.get(c.PIN_MEMORY)
    if _truthy(pin):
        return [], made.with_place(PINNED)
    if pin is not None and isinstance(pin.value, ExtStream) and pin.value.param is not None:
        return [], made.with_place(FLAGGED)  # a parameter's flag: each caller's allocation
    device = site.keywords.get("device")
    if device is not None:
        place = _device(site, device)
        return [], made.with_place(*place) if place else made
    if name in c.LIKE_FACTORIES and site.positional:
        like = _tensor(site.positional[0].value)
        return [], made.with_place(like.place, like.index)
    if name in c.HOST_FACTORIES:
        return [], made.with_place(HOST)
    return [], made


def _factory(site: CallSite) -> Tensor:
    """A new leaf: no history, unless ``requires_grad=`` is not a literal false."""
    flag = site.keywords.get("requires_grad")
    if flag is None or (isinstance(flag.value, Const) and not flag.value.value):
        return ag.cut(Tensor())  # type: ignore[return-value]
    return Tensor()


#: For tests: the rows by method and function name.
METHOD_ROWS: Mapping[str, c.Hazard] = _METHOD_ROWS
FUNCTION_ROWS: Mapping[str, c.Hazard] = _FUNCTION_ROWS
