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
one state meets a backward run under another - mixed graphs included.

Switches are seen where they happen in Python (``torch_npu._C._npu_setStream``, which every
``torch.npu.set_stream`` / ``torch.npu.stream(...)`` reaches, so a ``set_stream`` bound before
the guard armed is seen too; ``with stream:``; ``torch.accelerator.set_stream``). A switch made
below them (a ``SyncLaunchStream`` context, C++) is found afterwards, when what is current is
not what the last seen switch left: the nodes made since that switch are then ``UNKNOWN``, and
unknown nodes are not judged (no false refusal). Nodes made in other threads (sequence numbers
of another counter), before the checks armed while an external stream was current, and
``AccumulateGrad`` nodes (numbered ``UINT64_MAX``; their stream is that of their creation) are
not judged either: hazards.md lists them as blind spots.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable
from typing import Any

from extstream_lint.contract import native_not_supported

from . import _state
from ._hazard_report import current_id, fail, npu_devices, stream_text
from .patches import Point
from .predicate import EXTERNAL_MARK, PRIVATEUSE1

__all__ = ["UNKNOWN", "backward_wrapper", "reset", "start_thread", "switch_wrapper"]

Session = _state.Session

UNKNOWN = -1
#: AccumulateGrad (and GraphRoot) are numbered UINT64_MAX: their stream is not known here.
_UNNUMBERED = 1 << 63
#: Change points kept per thread and device; older nodes are not judged.
_MAX_POINTS = 512
#: Nodes a backward check visits at most; a bigger graph is judged on those it saw.
MAX_NODES = 50_000


class _Track(threading.local):
    """One thread's change points: ``seqs[device]`` (sorted sequence numbers) and
    ``states[device]`` (the state from that number on); ``seqs[device][0]`` is the floor,
    below which nodes are ``UNKNOWN``; ``ext_seen`` the devices that ever had a state other
    than a managed stream (only they can fail the check)."""

    def __init__(self) -> None:
        self.generation = -1
        self.seqs: dict[int, list[int]] = {}
        self.states: dict[int, list[int]] = {}
        self.ext_seen: set[int] = set()


_track = _Track()
#: Bumped by every arm/disarm: a thread's record from an earlier installation is discarded.
_generation = [0]


def _thread() -> _Track:
    track = _track
    if track.generation != _generation[0]:
        track.seqs, track.states, track.ext_seen = {}, {}, set()
        track.generation = _generation[0]
    return track


#: ``torch._C._autograd._get_sequence_nr``, bound when the checks arm (a switch reads it).
_get_sequence_nr: list[Callable[[], int]] = [lambda: 0]


def _sequence_nr() -> int:
    return int(_get_sequence_nr[0]())


def _state_of(stream_id: int) -> int:
    return stream_id if stream_id & EXTERNAL_MARK else 0


def _append(track: _Track, device: int, seq: int, state: int) -> None:
    seqs, states = track.seqs[device], track.states[device]
    if states[-1] == state:
        return
    if seqs[-1] == seq:  # no node was made in between: the later state is the one
        states[-1] = state
    else:
        seqs.append(seq)
        states.append(state)
    if state:
        track.ext_seen.add(device)
    if len(seqs) > _MAX_POINTS:
        del seqs[0], states[0]  # nodes below the new first point are unknown


def _first_sight(track: _Track, device: int, seq: int, before: int | None) -> None:
    """The first change point of ``device`` in this thread. Nodes made before it were made
    under a managed stream when one is current now (after arming every Python path that makes
    an external stream current is seen); with an external stream already current, or nothing
    read, since when is not known, so they are unknown."""
    if before is not None and not _state_of(before):
        track.seqs[device], track.states[device] = [0], [0]
    else:
        track.seqs[device], track.states[device] = [seq], [UNKNOWN]


def _observe(device: int, before: int, after: int) -> None:
    """This thread's current stream on ``device`` was ``before`` just before a switch and is
    ``after`` now. A ``before`` that differs from what the last seen change left means a
    switch the guard did not see: the nodes made since that change are unknown. (Every
    region entry and exit runs this: kept to one call below it in the common case.)"""
    track = _track
    if track.generation != _generation[0]:
        track = _thread()
    seq = _get_sequence_nr[0]()
    states = track.states.get(device)
    if states is None:
        _first_sight(track, device, seq, before)
        states = track.states[device]
    elif states[-1] != (before if before & EXTERNAL_MARK else 0):
        states[-1] = UNKNOWN
    state = after if after & EXTERNAL_MARK else 0
    if states[-1] != state:
        if track.seqs[device][-1] == seq:  # no node made since the last point: replace it
            states[-1] = state
            if state:
                track.ext_seen.add(device)
        else:
            _append(track, device, seq, state)


def start_thread(devices: list[tuple[int, int]]) -> None:
    """At arming: the arming thread's current streams, ``(device, stream id)`` per device."""
    track = _thread()
    seq = _sequence_nr()
    for device, stream_id in devices:
        _first_sight(track, device, seq, stream_id)
        _append(track, device, seq, _state_of(stream_id))


def reset() -> None:
    """Forget every thread's record (at arm and disarm)."""
    _generation[0] += 1
    if _state.torch is not None:
        _get_sequence_nr[0] = _state.torch._C._autograd._get_sequence_nr


# --- the switch points -------------------------------------------------------------------------


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
    ``with stream:``, where C++ restores what it saved: that is read."""
    kind = point.kind

    if kind == "switch_raw":

        def raw(*args: Any, **kwargs: Any) -> Any:
            if not session.live:
                return orig(*args, **kwargs)
            stream_id = args[0] if args else kwargs.get("stream_id", 0)
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


def _graph_other(
    seqs: list[int], states: list[int], now: int, node: Any
) -> tuple[int | None, bool]:
    """Walk the graph under ``node``: the first state other than ``now`` a node of this
    thread was made under (None: none), and whether one made under ``now`` was met before.

    A node's inputs were made before it, in the same thread, so below the first point whose
    state is neither ``now`` nor unknown no node can be made under another state: such a
    node's subgraph is not walked."""
    for at, state in enumerate(states):
        if state != now and state != UNKNOWN:
            low = seqs[at]
            break
    else:
        return None, False
    horizon = _get_sequence_nr[0]()  # numbers at or above it: other threads' counters
    bisect_right = bisect.bisect_right
    seen = {id(node)}
    stack = [node]
    met_now = False
    visited = 0
    while stack and visited < MAX_NODES:
        current = stack.pop()
        visited += 1
        try:
            seq = current._sequence_nr()
        except (AttributeError, RuntimeError, TypeError):
            seq = horizon
        if seq < horizon:
            if seq < low:
                continue
            state = states[bisect_right(seqs, seq) - 1]
            if state != now and state != UNKNOWN:
                return state, met_now
            met_now = met_now or state == now
        for child, _ in current.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return None, met_now


def _check_backward(session: Session, point: Point, roots: Any) -> None:
    if isinstance(roots, _state.torch.Tensor):  # type: ignore[union-attr]
        roots = (roots,)
    C = _state.torch_npu._C  # type: ignore[union-attr]
    for root in roots:
        try:
            index = npu_devices.get(root.device)  # a GradientEdge has no device: not judged
        except AttributeError:
            continue
        if index is None:
            continue
        node = root.grad_fn
        if node is None:
            continue
        if index < 0:
            index = C._npu_getDevice()
        now_id = C._npu_getCurrentStream(index)[0]
        now = now_id if now_id & EXTERNAL_MARK else 0
        track = _track if _track.generation == _generation[0] else _thread()
        states = track.states.get(index)
        if states is None:
            if not now:
                continue  # no external stream ever current here in this thread
            _first_sight(track, index, _sequence_nr(), now_id)
            _append(track, index, _sequence_nr(), now)
        elif states[-1] != now:
            # A switch the guard did not see: since the last one it saw, nodes are unknown.
            states[-1] = UNKNOWN
            _append(track, index, _sequence_nr(), now)
        if not now and index not in track.ext_seen:
            continue
        other, mixed = _graph_other(track.seqs[index], track.states[index], now, node)
        if other is None:
            continue
        native = native_not_supported("LaunchRecordEventTask" if now else "LaunchWaitEventTask")
        made = f"external stream {stream_text(index, other)}" if other else "a managed stream"
        runs = f"external stream {stream_text(index, now_id)}" if now else "another stream"
        detail = (
            f"part of the graph was built while {made} was current, and backward runs on "
            f"{runs}" + (" (the graph mixes nodes made under both)" if mixed else "")
        )
        fail(session, "XST203", point.operation, native, detail, index, other or now_id)
        return


def backward_wrapper(
    point: Point, orig: Callable[..., Any], session: Session
) -> Callable[..., Any]:
    """``torch.autograd._engine_run_backward``, the entry ``backward`` and ``grad`` share."""

    def wrapper(t_outputs: Any, *args: Any, **kwargs: Any) -> Any:
        if session.live:
            _check_backward(session, point, t_outputs)
        return orig(t_outputs, *args, **kwargs)

    return wrapper
