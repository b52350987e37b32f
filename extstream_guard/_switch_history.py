"""The switch history the XST203 check judges nodes by: per thread and device, the autograd
sequence numbers at which the current stream changed, and the state after each (an external
stream's id, ``0`` for a torch_npu-managed stream, ``UNKNOWN``). Kept apart from
:mod:`._autograd`, which reads it at a backward, because recording and judging change for
different reasons; the module's globals bound at arming (``_get_sequence_nr``,
``_accumulate_grad``, ``_copies``, ``_local``) are read through the module, never copied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from . import _state
from .predicate import EXTERNAL_MARK

__all__ = ["UNKNOWN", "reset", "start_thread"]

UNKNOWN = -1
#: Change points kept per thread and device; older nodes are not judged.
_MAX_POINTS = 512


class _Record:
    """One thread's change points: ``seqs[device]`` (sorted sequence numbers) and
    ``states[device]`` (the state from that number on); ``seqs[device][0]`` is the floor,
    below which nodes are ``UNKNOWN``; ``ext_seen`` the devices that ever had a state other
    than a managed stream (only they can fail the check); ``high`` the highest sequence number
    the guard read in the thread (its counter passed every number below it: the thread made a
    node with each of them)."""

    __slots__ = ("ext_seen", "high", "seqs", "states", "views")

    def __init__(self) -> None:
        self.seqs: dict[int, list[int]] = {}
        self.states: dict[int, list[int]] = {}
        self.ext_seen: set[int] = set()
        self.high = 0
        #: Per device, what a backward check reads of the points (:func:`_view`), kept until
        #: they change: every change goes through :func:`_append` or :func:`_first_sight`,
        #: which drop it.
        self.views: dict[int, _View] = {}


#: ``(state, low, seqs, states, last seq, elsewhere)`` of one device of one thread: ``state``
#: is the last one (``states[-1]``, the view holds while the current stream's state is that),
#: ``low`` the first number judged (:func:`_low`, -1: nothing to judge), ``last seq``
#: ``seqs[-1]`` (nodes from it on were made under ``state``), ``elsewhere``
#: :func:`_elsewhere`. ``seqs`` and ``states`` are None with ``low`` -1.
_View = tuple[int, int, Any, Any, int, bool]


class _Local(threading.local):
    """The calling thread's :class:`_Record` of this installation (None: none yet)."""

    record: _Record | None = None


#: Replaced by every arm/disarm, so every thread's record from an earlier installation is gone.
_local = _Local()
#: The records of this installation, every thread's (dead threads' too: their nodes outlive
#: them), oldest first; a node's number is judged ambiguous against them (:func:`_walk`).
_records: list[_Record] = []
#: Records kept; a thread whose record was dropped has its nodes judged as the caller's.
_MAX_RECORDS = 64


def _thread() -> _Record:
    record = _local.record
    if record is None:
        record = _local.record = _Record()
        records = _records
        with _state.LOCK:
            records.append(record)
            if len(records) > _MAX_RECORDS:
                del records[0]
    return record


#: ``torch._C._autograd._get_sequence_nr``, bound when the checks arm (a switch reads it).
_get_sequence_nr: Callable[[], int] = lambda: 0  # noqa: E731


#: ``torch._C._functions.AccumulateGrad``: a leaf, no inputs to walk (bound when armed).
_accumulate_grad: Any = None
#: The node types whose inputs can be on another device than their own (``Tensor.to``,
#: ``copy_``, a ``copy_`` into a view): bound when armed.
_copies: frozenset[Any] = frozenset()


def _sequence_nr() -> int:
    return int(_get_sequence_nr())


def _state_of(stream_id: int) -> int:
    return stream_id if stream_id & EXTERNAL_MARK else 0


def _append(track: _Record, device: int, seq: int, state: int) -> None:
    """The state of ``device`` is ``state`` from number ``seq`` on (every change of the
    points goes through here, or :func:`_first_sight`)."""
    seqs, states = track.seqs[device], track.states[device]
    if states[-1] == state:
        return
    if seqs[-1] == seq:  # no node was made in between: the later state is the one
        if len(states) > 1 and states[-2] == state:
            del seqs[-1], states[-1]  # and the point before already says it
        else:
            states[-1] = state
    else:
        seqs.append(seq)
        states.append(state)
    if len(seqs) > _MAX_POINTS:
        del seqs[0], states[0]  # nodes below the new first point are unknown
    if state and device not in track.ext_seen:
        track.ext_seen.add(device)
        track.views.clear()  # every device's view says whether another device is in it
    else:
        track.views.pop(device, None)


def _low(track: _Record, device: int) -> int:
    """The first number from which this thread can have made a node of ``device`` under a
    state other than its last one (-1: none): below it, the last state or unknown."""
    states = track.states[device]
    now = states[-1]
    for at, state in enumerate(states):
        if state != now and state != UNKNOWN:
            return track.seqs[device][at]
    return -1


def _view(track: _Record, device: int, now: int, now_id: int) -> _View:
    """The calling thread's points of ``device`` for a backward run under state ``now``
    (stream id ``now_id``), brought up to date and kept in ``track.views`` until they change.

    A last state other than ``now`` is a switch the guard did not see: the nodes made since
    the last switch it saw are unknown, and ``now`` holds from here on."""
    states = track.states.get(device)
    if states is None:
        if not now:  # no external stream ever current here in this thread
            view: _View = (now, -1, None, None, 0, _elsewhere(track, device))
            track.views[device] = view
            return view
        _first_sight(track, device, _sequence_nr(), now_id)
        _append(track, device, _sequence_nr(), now)
    elif states[-1] != now:
        states[-1] = UNKNOWN  # (the _append below changes the points: the view goes)
        _append(track, device, _sequence_nr(), now)
    seqs, states = track.seqs[device], track.states[device]
    low = _low(track, device) if now or device in track.ext_seen else -1
    view = track.views[device] = (now, low, seqs, states, seqs[-1], _elsewhere(track, device))
    return view


def _elsewhere(track: _Record, device: int) -> bool:
    """Whether an external stream was current on another device than ``device`` in this
    thread: its nodes are then judged each against its own device's points."""
    seen = track.ext_seen
    return bool(seen) and (len(seen) > 1 or device not in seen)


def _first_sight(track: _Record, device: int, seq: int, before: int | None) -> None:
    """The first change point of ``device`` in this thread. Nodes made before it were made
    under a managed stream when one is current now (after arming every Python path that makes
    an external stream current is seen); with an external stream already current, or nothing
    read, since when is not known, so they are unknown."""
    if before is not None and not _state_of(before):
        track.seqs[device], track.states[device] = [0], [0]
    else:
        track.seqs[device], track.states[device] = [seq], [UNKNOWN]
    track.views.pop(device, None)


def _observe(device: int, before: int, after: int) -> None:
    """This thread's current stream on ``device`` was ``before`` just before a switch and is
    ``after`` now. A ``before`` that differs from what the last seen change left means a
    switch the guard did not see: the nodes made since that change are unknown. (Every
    region entry and exit runs this: kept to one call below it in the common case.)"""
    track = _local.record or _thread()
    seq = _get_sequence_nr()
    track.high = seq
    states = track.states.get(device)
    if states is None:
        _first_sight(track, device, seq, before)
        states = track.states[device]
    elif states[-1] != (before if before & EXTERNAL_MARK else 0):
        states[-1] = UNKNOWN  # (the _append below changes the points: the cache goes)
    state = after if after & EXTERNAL_MARK else 0
    if states[-1] != state:
        _append(track, device, seq, state)


def start_thread(devices: list[tuple[int, int]]) -> None:
    """At arming: the arming thread's current streams, ``(device, stream id)`` per device."""
    track = _thread()
    seq = _sequence_nr()
    track.high = seq
    for device, stream_id in devices:
        _first_sight(track, device, seq, stream_id)
        _append(track, device, seq, _state_of(stream_id))


def reset() -> None:
    """Forget every thread's record (at arm and disarm)."""
    global _local, _get_sequence_nr, _accumulate_grad, _copies
    _local = _Local()
    with _state.LOCK:
        _records.clear()
    if _state.torch is not None:
        _get_sequence_nr = _state.torch._C._autograd._get_sequence_nr
        functions = _state.torch._C._functions
        _accumulate_grad = getattr(functions, "AccumulateGrad", None)
        names = ("ToCopyBackward0", "CopyBackwards", "CopySlices")
        _copies = frozenset(getattr(functions, name) for name in names if hasattr(functions, name))
