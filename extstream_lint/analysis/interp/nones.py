"""None-ness decided by a caller (issue 38, value flow): the ``Optional[Stream] = None``
idiom. A function that tests a parameter against ``None`` or for truth (``s = stream if
stream is not None else self.default_stream``, ``if stream is None: stream = ...``, ``stream
= stream or torch.npu.current_stream()``, ``match stream: case None:``) is summarised with
the parameter unknown, both branches counted. A call that passes ``None`` (or leaves a
``None`` default) or a stream there uses a copy of the summary learnt with that answer, as a
literal argument's (:mod:`.constants`): ``None`` itself, or the parameter symbolic and
:data:`..abstract.atoms.PRESENT_HOW` (not ``None``, true), so what the copy does with
the caller's stream is still reported at the caller. Only where the summary reads streams
(a ``None`` test of any other function decides nothing the rules read)."""

from __future__ import annotations

from ..abstract.atoms import Const, ExtStream, Ref, present
from ..abstract.handles import ManagedStream
from ..abstract.holding import reads_streams
from ..abstract.values import FunctionInfo, Value

#: A copy's parameter the caller gives a stream: not ``None``, true (:func:`noneness`).
PRESENT = Const("<present>")


def noneness(value: Value) -> Value:
    """What a call's argument decides of a parameter the callee tests against ``None`` or for
    truth (``stream if stream is not None else self.default``, ``if stream is None:``,
    ``stream or current_stream()``; issue 38): ``None`` itself, or :data:`PRESENT` for a
    stream (external on every path, managed, or a copy's own parameter a caller gave one).
    At most two copies per parameter, one per answer. Anything else (an unknown value, an
    object that may define ``__bool__``) decides nothing: ``None`` (both answers are true
    as objects, so ``any(map(noneness, ...))`` asks whether any argument decides)."""
    kind = type(value)  # exact types: no value class has a subclass
    if kind is Const:
        return value if value.value is None else None  # type: ignore[union-attr]
    if kind is ManagedStream:
        return PRESENT
    if kind is ExtStream and value.must and not value.nullable:  # type: ignore[union-attr]
        return PRESENT if value.param is None or present(value) else None  # type: ignore[union-attr]
    return None


#: ``type(None)`` (``types.NoneType``): ``isinstance(stream, type(None))`` tests None-ness.
NONE_TYPE = Ref("types.NoneType")


def is_none_type(values: list[Value]) -> bool | None:
    """``isinstance(value, NoneType)`` with ``values`` its two arguments, when known: the
    literal ``None`` is, a stream (a caller's, :data:`PRESENT`) is not."""
    value, tested = values
    if tested != NONE_TYPE:
        return None
    decided = noneness(value)
    return None if decided is None else decided is not PRESENT


def none_decided(maybe_in: set[FunctionInfo], info: FunctionInfo, value: Value) -> Value:
    """What a copy of ``info`` is learnt with for a parameter its body tests for None-ness,
    given ``value``: :func:`noneness`. For ``None``, only where ``info``'s summary reads
    streams or a literal may decide its findings (``maybe_in``, :mod:`.decisions`), as for
    a string's text (``None`` is everywhere); a stream given is always followed (what the
    body does with it, ``self.stream = stream if stream is not None else ...``, is read)."""
    decided = noneness(value)
    if decided is None or decided is PRESENT:
        return decided
    return decided if info in maybe_in or reads_streams(info) else None
