"""Where a value's autograd graph was computed, as a lattice: :class:`Made` and its joins.

Part of the abstract domain (a :class:`.values.Tensor` carries one); what it means for a
backward pass, and how the interpreter derives it, is :mod:`..semantics.provenance`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .atoms import ExtStream, ParamRef

__all__ = ["MAX_STREAMS", "NOGRAD", "PLAIN", "Made", "join_made", "stream_key", "union"]

#: At most this many external streams per value (more is no longer one training step).
MAX_STREAMS = 4


@dataclass(frozen=True)
class Made:
    """Where a value's autograd graph was computed: small, frozen and joinable.

    ``streams``: each external stream (real, or a summarised function's symbolic one) some part
    was computed under; its ``must`` says whether on every path. ``plain``: some part was
    computed with no external stream current (``plain_must``: on every path). ``params``:
    in a summarised function, the parameters whose own provenance is part of it (``loss.sum()``
    of a parameter ``loss``): whatever the caller passes there, resolved at each call.
    ``recorded``: False for a tensor known to have no autograd history and not to require grad
    (made in no-grad mode, detached, a factory's leaf): an op on such tensors records no node,
    whatever stream is current (:data:`NOGRAD`). ``inputs``: in a summarised function, the
    parameters it was computed from alone (with literals and tensors without history): its
    nodes were recorded only if what the caller passes there requires grad or has history
    (empty: whatever the caller passes).
    """

    streams: tuple[ExtStream, ...] = ()
    plain: bool = False
    plain_must: bool = False
    params: tuple[ParamRef, ...] = ()
    recorded: bool = True
    inputs: tuple[ParamRef, ...] = ()


#: Computed with no external stream current, from nothing that was: shared, never allocated.
PLAIN = Made((), True, True)
#: No autograd history and no grad required (``torch.no_grad()``, ``.detach()``, a factory):
#: nothing a backward could walk.
NOGRAD = Made(recorded=False)


def stream_key(stream: ExtStream) -> object:
    """What makes two stream facts the same stream (not whether on every path)."""
    if stream.param is not None:
        return ("param", stream.param, stream.also)
    return ("real", id(stream.origin), stream.current_of or "")


def _weak(stream: ExtStream) -> ExtStream:
    return stream.weakened()


def union(parts: Iterable[Made]) -> Made | None:
    """A value computed from all of ``parts`` (its graph holds every one's nodes)."""
    streams: dict[object, ExtStream] = {}
    params: dict[ParamRef, None] = {}
    plain = plain_must = False
    seen = recorded = False
    inputs: dict[ParamRef, None] | None = {}  # None: recorded whatever the caller passes
    for part in parts:
        seen = True
        if not part.recorded:
            continue  # no history: nothing of it is in the result's graph
        recorded = True
        inputs = _inputs(inputs, part)
        plain = plain or part.plain
        plain_must = plain_must or part.plain_must
        for ref in part.params:
            if len(params) < MAX_STREAMS:
                params[ref] = None
        for stream in part.streams:
            key = stream_key(stream)
            old = streams.get(key)
            if old is None:
                if len(streams) < MAX_STREAMS:
                    streams[key] = stream
            elif stream.must and not old.must:
                streams[key] = stream
    if not seen:
        return None
    if not recorded:
        return NOGRAD
    if not streams and plain_must and not params and not inputs:
        return PLAIN
    return Made(
        tuple(streams.values()), plain, plain_must, tuple(params), True, tuple(inputs or ())
    )


def _inputs(inputs: dict[ParamRef, None] | None, part: Made) -> dict[ParamRef, None] | None:
    """The parameters a union was recorded from alone, with ``part``'s; None once a part is
    recorded whatever the caller passes."""
    if inputs is None or not part.inputs or len(inputs) + len(part.inputs) > MAX_STREAMS:
        return None
    return {**inputs, **dict.fromkeys(part.inputs)}


def join_made(a: Made | None, b: Made | None) -> Made | None:
    """Where control flow joins: a fact of one path only is a "may"."""
    if a is b:  # most often the same object: no field-by-field ``==``
        return a
    if a is None or b is None:
        known = a if b is None else b
        assert known is not None
        weak = tuple(_weak(s) for s in known.streams)
        return Made(weak, known.plain, False, known.params, known.recorded, known.inputs)
    if a == b:
        return a
    theirs = {stream_key(s): s for s in b.streams}
    streams = []
    for stream in a.streams:
        other = theirs.pop(stream_key(stream), None)
        both = other is not None and stream.must and other.must
        streams.append(stream if both else _weak(stream))
    streams.extend(_weak(s) for s in theirs.values())
    params = tuple(dict.fromkeys((*a.params, *b.params)))[:MAX_STREAMS]
    inputs: dict[ParamRef, None] | None = {}
    for side in (a, b):
        if side.recorded:  # a path with no history adds no condition
            inputs = _inputs(inputs, side)
    return Made(
        tuple(streams[:MAX_STREAMS]),
        a.plain or b.plain,
        a.plain_must and b.plain_must,
        params,
        True,
        tuple(inputs or ()),
    )
