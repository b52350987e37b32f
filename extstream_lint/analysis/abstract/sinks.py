"""Sinks: the refused operations a function's parameters reach, as its summary records them.

A helper's summary says, per parameter path, which rule its body breaks when the caller
passes an external stream there (:mod:`.summaries` learns and applies them). Plain data,
kept in ``.extstream_cache/`` with the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

__all__ = ["Guard", "ParamPath", "Sink", "SinkKey"]

#: A parameter path of the summarised function: index, attribute path.
ParamPath = tuple[int, tuple[str, ...]]
#: A handle guard: the parameter path that must be an event, graph or work (its kind).
Guard = tuple[int, tuple[str, ...], str]
#: A sink's key: parameter index, attribute path, rule code, and the guard if any (a guarded
#: ``g.capture_begin()`` and an unguarded one on the same current stream are two sinks).
SinkKey = tuple[int, tuple[str, ...], str, Union[Guard, None]]


@dataclass(frozen=True)
class Sink:
    """A refused operation reached by a parameter (or by the caller's current stream)."""

    code: str
    #: The operation as the helper spells it: ``synchronize()``.
    operation: str
    #: Where it happens: a libcst node of the analysed module, or a :class:`Remote`.
    anchor: object
    #: How the helper's caller should read the target: "its argument 's'".
    target: str
    #: The value is external on every path through the helper.
    must: bool
    #: The operation uses the current stream without naming it.
    implicit: bool
    #: Helpers between the summarised function and the operation, outermost first.
    through: tuple[str, ...] = ()
    #: The sink applies only if this parameter path is a handle of this kind (contract
    #: table: event, graph, work): ``def fin(work): work.wait()`` on the caller's stream.
    guard: Guard | None = None
    #: The sink does not apply when this parameter path is surely external: an earlier
    #: check raises first (``a.wait_stream(b)``: recording on ``b`` fails before ``a`` waits).
    unless: ParamPath | None = None
    #: ``anchor`` is where a method was bound to its receiver (``poll = ext.query``), and
    #: the call site calls that bound method: the message names the binding, not a helper.
    bound: bool = False
