"""G203 (XST203): ``backward()`` / ``autograd.grad`` across an external-stream boundary.

The autograd engine syncs streams wherever a gradient crosses from one node's stream to
another's (hazards.md, hazard 3): the root gradient is produced on the stream current at the
backward and consumed on the root node's; each interior edge goes from the producing node's
stream to the consuming node's. Every such crossing records an event on the producer (X06 if
external) and makes the consumer wait (X07 if external); forward-under-external then
backward-outside also aborts the process when the gradient is freed.

A node's stream lives in C++ (``InputMetadata``), out of Python's reach. What the guard can
know is when each node was made: the autograd sequence number, one counter per thread. So
each thread keeps, per device, the points where its current stream changed, by sequence
number, with the state after each: an external stream's id, ``0`` for a torch_npu-managed
stream, or ``UNKNOWN``. The backward check then reads the stream **really** current on the
root's device (torch_npu's raw query), walks the graph, and refuses when a node made under
one state meets a backward run under another - mixed graphs included. A node's stream is
not readable, but its device is (``_input_metadata``): once a thread had an external stream
current on another device than the root's, each node is judged against its own device's points
(:func:`_judge_devices`).

Switches are seen where they happen in Python (``torch_npu._C._npu_setStream``, which every
``torch.npu.set_stream`` / ``torch.npu.stream(...)`` reaches, so a ``set_stream`` bound before
the guard armed is seen too; ``with stream:``; ``torch.accelerator.set_stream``). A switch made
below them (a ``SyncLaunchStream`` context, C++) is found afterwards, when what is current is
not what the last seen switch left: the nodes made since that switch are then ``UNKNOWN``, and
unknown nodes are not judged (no false refusal). Nodes made before the checks armed while an
external stream was current, and ``AccumulateGrad`` nodes (numbered ``UINT64_MAX``; their
stream is that of their creation) are not judged either: hazards.md lists them as blind spots.

**Threads.** Counters are per thread, and a node does not say which thread made it, so its
number is read as the calling thread's only where nothing says otherwise. It is another
thread's, so unknown, when it is at or above the calling thread's counter; when it is not below
its consumer's (a node made in one thread has older inputs, lower numbers, from that thread),
and then what is reached only through it is unknown too; or when another thread the guard saw
switch streams passed that number (its counter went beyond it, so it made a node with it)
under an external stream other than the calling thread's state then (:func:`_ambiguous`).
Another thread's managed nodes whose numbers the calling thread made under an external
stream are judged as the calling thread's, unless an edge from a node to a higher-numbered
input lies at or below them (``parallel_apply``: workers' nodes take what the caller scattered
later): then they are not judged (:func:`_collides`). What stays: such nodes with no such edge
below them (a worker's graph over leaves only) are judged as the calling thread's (a false
refusal, when backward runs outside it), and so are numbers a thread reached after its last
switch or in a thread the guard never saw switch.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import native_not_supported

from . import _state
from . import _switch_history as _history
from ._hazard_report import current_id, fail, npu_devices, stream_text
from ._switch_history import (
    UNKNOWN,
    _observe,
    _Record,
    _records,
    _state_of,
    _thread,
    _view,
    reset,
    start_thread,
)
from .patches import Point
from .predicate import EXTERNAL_MARK, PRIVATEUSE1, is_external

__all__ = ["UNKNOWN", "backward_wrapper", "reset", "start_thread", "switch_wrapper"]

Session = _state.Session

#: AccumulateGrad (and GraphRoot) are numbered UINT64_MAX: their stream is not known here.
_UNNUMBERED = 1 << 63
#: Nodes a backward check visits at most; a bigger graph is judged on those it saw.
MAX_NODES = 50_000

# --- the switch points -------------------------------------------------------------------------


def _arm() -> None:
    """Arm the hazard checks now: a switch made an external stream current (after the switch:
    arming reads what is current, the external stream, from here on)."""
    hook = _state.on_first_external
    if hook is not None:
        hook()


def _device_of_stream(stream: Any) -> int | None:
    try:
        if stream.device_type != PRIVATEUSE1:
            return None
        return int(stream.device_index)
    except (AttributeError, TypeError, ValueError):
        return None


def switch_wrapper(point: Point, orig: Callable[..., Any], session: Session) -> Callable[..., Any]:
    """``torch_npu._C._npu_setStream(stream_id=, device_index=, device_type=)``,
    ``torch.accelerator.set_stream(stream)``, ``Stream.__enter__`` / ``__exit__``.

    The device's current stream is read before the switch (to find one the guard did not
    see); after it, the stream switched to is known from the arguments, except on leaving
    ``with stream:``, where C++ restores what it saved: that is read.

    Patched at install, before the checks arm (issue 40): until then a switch only calls
    through, and arms the checks when it made an external stream current (one made before
    ``install()``, which no constructor wrapper saw)."""
    kind = point.kind

    if kind == "switch_raw":

        def raw(*args: Any, **kwargs: Any) -> Any:
            if not session.live:
                return orig(*args, **kwargs)
            stream_id = args[0] if args else kwargs.get("stream_id", 0)
            if not _state.hazards_armed:
                result = orig(*args, **kwargs)
                if type(stream_id) is int and stream_id & EXTERNAL_MARK:
                    _arm()
                return result
            device = args[1] if len(args) > 1 else kwargs.get("device_index", 0)
            device_type = args[2] if len(args) > 2 else kwargs.get("device_type", 0)
            if device_type != PRIVATEUSE1 or type(device) is not int or device < 0:
                return orig(*args, **kwargs)
            before = current_id(device)
            result = orig(*args, **kwargs)
            _observe(device, before, int(stream_id))
            return result

        return raw
    if kind == "switch_set":

        def setter(*args: Any, **kwargs: Any) -> Any:
            stream = args[0] if args else kwargs.get("stream")
            if not _state.hazards_armed:
                result = orig(*args, **kwargs)
                if session.live and is_external(stream):
                    _arm()
                return result
            device = _device_of_stream(stream) if session.live and stream is not None else None
            if device is None:
                return orig(*args, **kwargs)
            before = current_id(device)
            result = orig(*args, **kwargs)
            _observe(device, before, int(stream.stream_id))
            return result

        return setter
    leaving = kind == "switch_exit"

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:  # __enter__ / __exit__
        if not _state.hazards_armed:
            result = orig(self, *args, **kwargs)
            # Leaving restores what was current before: an external stream there was made
            # current through a switch seen here (which armed), or before install (armed).
            if not leaving and session.live and is_external(self):
                _arm()
            return result
        if session.live:
            try:
                device = self.device_index if self.device_type == PRIVATEUSE1 else None
            except AttributeError:
                device = None
            if device is not None:
                C = _state.torch_npu._C  # type: ignore[union-attr]
                before = C._npu_getCurrentStream(device)[0]
                result = orig(self, *args, **kwargs)
                after = C._npu_getCurrentStream(device)[0] if leaving else self.stream_id
                _observe(device, before, after)
                return result
        return orig(self, *args, **kwargs)

    return method


# --- the backward entry ----------------------------------------------------------------------


def _others(record: _Record, device: int, low: int) -> list[tuple[int, list[int], list[int]]]:
    """``(high, seqs, states)`` of the other threads whose counters passed ``low`` on
    ``device``: a number between ``low`` and their ``high`` is also one of their nodes."""
    return [
        (other.high, other.seqs[device], other.states[device])
        for other in _records
        if other is not record and other.high > low and device in other.states
    ]


def _ambiguous(others: list[tuple[int, list[int], list[int]]], seq: int, state: int) -> bool:
    """Whether another thread made a node numbered ``seq`` under an external (or unknown)
    state other than ``state``: the number then does not say whose node it is.

    A collision with another thread's *managed* number is read as the calling thread's: every
    long-lived thread (the one that armed the checks, to begin with) has passed the numbers of
    a young thread's region, so counting them would hide that thread's own crossings, the
    ones that abort the process (forward under an external stream, backward outside it). The
    other way round, a managed number of the caller that another thread made under the
    external stream now current is unknown: judged as the caller's it would be refused, and
    if it is the caller's the engine raises X06 at once (hazards.md: no abort)."""
    for high, seqs, states in others:
        if seq < high:
            at = bisect_right(seqs, seq) - 1
            theirs = states[at] if at >= 0 else UNKNOWN
            if theirs != state and theirs != 0:
                return True
    return False


def _collides(others: list[tuple[int, list[int], list[int]]], seq: int) -> bool:
    """Whether another thread the guard saw made a node numbered ``seq`` under a managed
    stream. Such a crossing is the caller's unless the graph was built across threads: an
    edge whose input is numbered above its consumer (``parallel_apply``: the workers' nodes,
    numbered from 0, take inputs the caller scattered and broadcast later). Then the workers'
    nodes fall among the caller's numbers, and judged as the caller's they would be refused
    (issue 40); :func:`_judge` drops such a crossing when that edge is at or below its node
    (:func:`_reaches`). A node whose inputs are all older and from its own thread keeps it: a
    young thread's own region among the managed numbers the arming thread passed long ago is
    still refused, in a graph that also holds a worker's part too."""
    for high, seqs, states in others:
        if seq < high:
            at = bisect_right(seqs, seq) - 1
            if at >= 0 and states[at] == 0:
                return True
    return False


def _judge(root: Any, index: int, seen: dict[int, set[Any]] | None) -> tuple[Any, ...] | None:
    """``(device, state a node was made under, stream id current now, mixed, that node)`` when
    the graph
    of ``root`` (an NPU tensor on device ``index``, -1: the current one) crosses a boundary:
    a node of this thread made under a state other than the one current now; ``mixed``: the
    root was made under the current one. ``seen``: the nodes reached per device for the roots
    of one call (None: one root).

    A node's number is this thread's only if the thread made it. Numbers at or above the
    thread's counter (``horizon``) are other threads'; and a node made in this thread has
    inputs made before it, so lower numbers, in the same thread: an input whose number is not
    below its consumer's was made in another thread, and it and what is reached only through
    it are unknown (not walked). A number another thread is known to have made under another
    state (:func:`_ambiguous`) is unknown too. Below ``low`` this thread made nodes under the
    current state only, and their inputs are older: their subgraphs are not walked. Each node
    is judged when first reached; the nodes reached stay alive in a set (no id is reused).
    One function, because every step costs: most backward passes end before the walk, and a
    walk pays per node made since ``low``."""
    node = root.grad_fn
    if node is None:
        return None
    C = _state.torch_npu._C  # type: ignore[union-attr]
    if index < 0:
        index = C._npu_getDevice()
    now_id = C._npu_getCurrentStream(index)[0]
    now = now_id if now_id & EXTERNAL_MARK else 0
    record = _history._local.record or _thread()
    view = record.views.get(index)
    if view is None or view[0] != now:
        view = _view(record, index, now, now_id)
    _, low, seqs, states, last_seq, elsewhere = view
    if elsewhere:
        # an external stream was current on another device than the root's in this thread:
        # each node is judged against its own device's points (issue 40)
        return _judge_devices(node, index, now, now_id, seen, record)
    if low < 0:
        return None
    try:
        seq = node._sequence_nr()
    except (AttributeError, RuntimeError, TypeError):
        return None
    if seq < low:
        return None  # made (as its inputs) before any other state in this thread
    horizon = _history._get_sequence_nr()
    record.high = horizon
    if seq >= horizon:
        return None  # another thread's root: its graph is unknown
    try:
        if seen is None:
            walked: set[Any] = {node}
        else:
            walked = seen.setdefault(index, set())
            if node in walked:
                return None
            walked.add(node)
    except TypeError:  # a node type that cannot be hashed: not judged
        return None
    others = _others(record, index, low) if len(_records) > 1 else None
    # ``states[-1]`` is ``now``: most nodes are from the latest interval.
    state = now if seq >= last_seq else states[bisect_right(seqs, seq) - 1]
    if others and _ambiguous(others, seq, state):
        state = UNKNOWN
    # A crossing whose number another thread made under a managed stream waits for the end of
    # the walk (:func:`_collides`): it is reported unless its own inputs cross threads.
    # (Made when first needed: most walks have neither.)
    pending: list[tuple[int, int, int, bool, Any]] | None = None
    if state != now and state != UNKNOWN:
        if not (others and _collides(others, seq)):
            return index, state, now_id, False, node
        pending = [(index, state, now_id, False, node)]
    #: Nodes with an input numbered at or above their own: made in another thread than it.
    across: set[Any] | None = None
    mixed = state == now
    leaf = _history._accumulate_grad
    copies = _history._copies
    # Each node with the bound of its inputs' numbers: its own, the horizon if unnumbered.
    stack = [(node, seq)]
    budget = MAX_NODES
    while stack and budget:
        budget -= 1
        current, bound = stack.pop()
        copying = type(current) in copies
        for child, _ in current.next_functions:
            # AccumulateGrad (unnumbered, no inputs) is never walked nor judged.
            if child is None or type(child) is leaf or child in walked:
                continue
            if copying:  # a copy from another device: each node on its own device from here
                device = _node_device(child)
                if device is not None and device != index:
                    return _judge_devices(node, index, now, now_id, seen, record)
            try:
                seq = child._sequence_nr()
            except (AttributeError, RuntimeError, TypeError):
                continue
            if seq >= bound:  # another thread's, or unnumbered
                if seq < _UNNUMBERED:
                    if across is None:
                        across = set()
                    across.add(current)
                if seq >= _UNNUMBERED and child.next_functions:
                    walked.add(child)  # an unnumbered interior node: inputs not compared
                    stack.append((child, horizon))
                continue
            if seq < low:
                continue  # made, as its inputs, before ``low``
            walked.add(child)
            # From ``last_seq`` on, made under ``now``: no crossing, ambiguous or not.
            if seq < last_seq:
                state = states[bisect_right(seqs, seq) - 1]
                if (
                    state != now
                    and state != UNKNOWN
                    and not (others and _ambiguous(others, seq, state))
                ):
                    if not (others and _collides(others, seq)):
                        return index, state, now_id, mixed, child
                    if pending is None:
                        pending = []
                    pending.append((index, state, now_id, mixed, child))
            stack.append((child, seq))
    if pending:
        for crossing in pending:
            if not (across and _reaches(crossing[-1], across)):
                return crossing
    return None


def _node_device(node: Any) -> int | None:
    """The NPU index of ``node`` as the engine reads it (``Node::stream()``: the device of
    its first input metadata of the accelerator's type), or None (no NPU input: a host node,
    or a node type without ``_input_metadata``)."""
    try:
        metadata = node._input_metadata
    except (AttributeError, RuntimeError, TypeError):
        return None
    devices = npu_devices
    for item in metadata:
        index = devices.get(item.device)
        if index is not None and index >= 0:
            return index
    return None


def _first_external(record: _Record) -> int:
    """The lowest number from which this thread made a node under an external stream, on any
    device (-1: none kept)."""
    first = -1
    for device in record.ext_seen:
        for seq, state in zip(record.seqs[device], record.states[device]):
            if state and state != UNKNOWN:
                if first < 0 or seq < first:
                    first = seq
                break
    return first


def _judge_devices(
    node: Any, index: int, now: int, now_id: int, seen: dict[int, set[Any]] | None,
    record: _Record,
) -> tuple[Any, ...] | None:  # fmt: skip
    """:func:`_judge` for a thread that had an external stream current on another device than
    the root's (``index``, whose stream now is ``now`` / ``now_id``): the graph's streams are
    ``(device, state)`` pairs, the root gradient's producer ``(index, now)``. A node crosses
    when its pair is not that one with an external stream on either side: a managed node of
    another device meets a managed root (device streams sync with each other), anything else
    meets an external stream at some edge of a connected graph. A node's device is the one
    its input metadata names (:func:`_node_device`; the root's when none does), its state
    that device's points at its number. Numbers another thread made too are unknown here
    (:func:`_ambiguous`, :func:`_collides`: not judged, no false refusal). Below the first
    number made under an external stream on any device (all of them when the backward runs
    under one) every node is managed or unknown: not walked. With every device managed now,
    a node made after the last switch of every device (``calm``) is managed wherever it is:
    walked, its device not read."""
    horizon = _history._get_sequence_nr()
    record.high = horizon
    floor = 0 if now else _first_external(record)
    if floor < 0:
        return None
    try:
        seq = node._sequence_nr()
    except (AttributeError, RuntimeError, TypeError):
        return None
    if seq < floor or seq >= horizon:
        return None
    if seen is None:
        walked: set[Any] = set()
    else:
        walked = seen.setdefault(-2, set())
        if node in walked:
            return None
    C = _state.torch_npu._C  # type: ignore[union-attr]
    several = len(_records) > 1
    #: Per device: (state now, seqs, states, last seq, other threads' points or None).
    table: dict[int, tuple[int, Any, Any, int, Any]] = {}

    def row_of(device: int) -> tuple[int, Any, Any, int, Any]:
        row = table.get(device)
        if row is None:
            dev_id = now_id if device == index else int(C._npu_getCurrentStream(device)[0])
            dev_now = _state_of(dev_id)
            view = record.views.get(device)
            if view is None or view[0] != dev_now:
                view = _view(record, device, dev_now, dev_id)
            others = _others(record, device, floor) if several and view[2] is not None else None
            row = table[device] = (dev_now, view[2], view[3], view[4], others)
        return row

    def state_at(device: int, seq: int) -> int:
        dev_now, seqs, states, last_seq, others = table.get(device) or row_of(device)
        if seqs is None or seq >= last_seq:
            state = dev_now
        else:
            at = bisect_right(seqs, seq) - 1
            state = states[at] if at >= 0 else UNKNOWN
        if others and (_ambiguous(others, seq, state) or _collides(others, seq)):
            return UNKNOWN
        return state

    calm = horizon
    if not now:
        rows = [row_of(device) for device in sorted(record.ext_seen)]
        if not any(row[0] for row in rows):
            calm = max(row[3] for row in rows)
    if seq >= calm:
        device, state = index, now
    else:
        device = _node_device(node)
        if device is None:
            device = index
        state = state_at(device, seq)
    mixed = device == index and state == now
    if state != UNKNOWN and (state or now) and (device != index or state != now):
        if state:
            return device, state, now_id, False, node, index
        return index, 0, now_id, False, node
    leaf = _history._accumulate_grad
    try:
        walked.add(node)
    except TypeError:
        return None
    stack = [(node, seq)]
    budget = MAX_NODES
    while stack and budget:
        budget -= 1
        current, bound = stack.pop()
        for child, _ in current.next_functions:
            if child is None or type(child) is leaf or child in walked:
                continue
            try:
                seq = child._sequence_nr()
            except (AttributeError, RuntimeError, TypeError):
                continue
            if seq >= bound:  # another thread's (not walked), or unnumbered
                if seq >= _UNNUMBERED and child.next_functions:
                    walked.add(child)
                    stack.append((child, horizon))
                continue
            if seq < floor:
                continue
            walked.add(child)
            if seq >= calm:  # managed, on whatever device
                stack.append((child, seq))
                continue
            device = _node_device(child)
            if device is None:
                device = index
            state = state_at(device, seq)
            if state != UNKNOWN and (state or now) and (device != index or state != now):
                if state:
                    return device, state, now_id, mixed, child, index
                return index, 0, now_id, mixed, child
            stack.append((child, seq))
    return None


def _reaches(node: Any, across: set[Any]) -> bool:
    """Whether ``node`` or a node below it takes an input from another thread (``across``):
    then its number does not say whose it is (``parallel_apply``'s worker nodes, above the
    caller's scatter and broadcast)."""
    stack, seen = [node], {node}
    budget = MAX_NODES
    while stack and budget:
        budget -= 1
        current = stack.pop()
        if current in across:
            return True
        for child, _ in current.next_functions:
            if (
                child is not None
                and child not in seen
                and type(child) is not _history._accumulate_grad
            ):
                seen.add(child)
                stack.append(child)
    return False


def backward_wrapper(
    point: Point, orig: Callable[..., Any], session: Session
) -> Callable[..., Any]:
    """``torch.autograd._engine_run_backward``, the entry ``backward`` and ``grad`` share.

    Kept to one frame and dict lookups until a root is on an NPU: most backward passes are
    judged without a graph walk (nothing external current or ever current in the thread, or a
    root older than every external state)."""
    Tensor = _state.torch.Tensor  # type: ignore[union-attr]
    devices = npu_devices
    operation = point.operation

    # ``*args`` whole: handed on as they came (no tuple rebuilt around ``t_outputs``)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if session.live:
            t_outputs = args[0] if args else kwargs.get("t_outputs")
            if type(t_outputs) is tuple and len(t_outputs) == 1:  # backward() of one tensor
                root = t_outputs[0]
                try:
                    index = devices.get(root.device)  # a GradientEdge has no device
                except AttributeError:
                    index = None
                if index is not None and (crossing := _judge(root, index, None)) is not None:
                    __tracebackhide__ = True
                    _report(session, operation, *crossing)
                return orig(*args, **kwargs)
            # ``seen`` is shared by the roots of one call: a node is walked once.
            seen: dict[int, set[Any]] | None = {}
            roots = t_outputs
            if type(t_outputs) is not tuple and isinstance(t_outputs, Tensor):
                roots, seen = (t_outputs,), None
            for root in roots:
                try:
                    index = devices.get(root.device)  # a GradientEdge has no device
                except AttributeError:
                    continue
                if index is None:
                    continue
                crossing = _judge(root, index, seen)
                if crossing is not None:
                    __tracebackhide__ = True
                    _report(session, operation, *crossing)
                    break
        return orig(*args, **kwargs)

    return wrapper


def _report(session: Session, operation: str, index: int, other: int, now_id: int,
            mixed: bool, node: Any, root: int | None = None) -> None:  # fmt: skip
    """``root``: the root's device when the node is on another one (``index``)."""
    __tracebackhide__ = True
    now = now_id & EXTERNAL_MARK
    native = native_not_supported("LaunchRecordEventTask" if now else "LaunchWaitEventTask")
    made = f"external stream {stream_text(index, other)}" if other else "a managed stream"
    runs = (
        f"external stream {stream_text(index if root is None else root, now_id)}"
        if now
        else "another stream"
    )
    detail = (
        f"node {_node_text(node)} was built while {made} was current, and backward runs on "
        f"{runs}" + (" (the graph mixes nodes made under both)" if mixed else "")
    )
    fail(session, "XST203", operation, native, detail, index, other or now_id)


def _node_text(node: Any) -> str:
    """``MulBackward0 (autograd sequence number 12)``: the node that crossed, as
    ``torch.autograd.graph`` names it."""
    try:
        return f"{node.name()} (autograd sequence number {node._sequence_nr()})"
    except Exception:  # a node type without them: named by its class
        return type(node).__name__
