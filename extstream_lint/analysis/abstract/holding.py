"""Whether a value holds an external stream (a stream itself, or a container or object with
one a few levels down), and whether a function's summary does. Asked where a value is kept
only when it matters to a rule (a global a function fills, a literal's copy worth learning,
a registry entry), so the walk is bounded.
"""

from __future__ import annotations

from .atoms import ExtStream
from .choices import OneOf
from .values import ClassInfo, FunctionInfo, Instance, Seq, Value

__all__ = ["holds_stream", "makes_streams", "reads_streams"]


def holds_stream(value: Value, depth: int = 2, *, concrete: bool = False) -> bool:
    """A stream, or a container or object holding one, ``depth`` levels down at most;
    ``concrete``: a stream the code makes, not what a parameter becomes."""
    if isinstance(value, ExtStream):
        return value.param is None or not concrete
    if depth <= 0:
        return False
    if isinstance(value, Seq):
        parts = (*value.items, *(item for _, item in value.keys))
        return any(holds_stream(part, depth - 1, concrete=concrete) for part in parts)
    if isinstance(value, Instance):
        held = (item for _, item in value.fields)
        return any(holds_stream(item, depth - 1, concrete=concrete) for item in held)
    return False


def reads_streams(info: FunctionInfo) -> bool:
    """The summary learnt with unknown arguments holds a stream the function makes or
    reads (not its parameters' own): it returns one, reports one at its callers, or sets
    one on an object. A literal that decides a branch of such a function may decide what
    the rules read; of any other, it decides nothing they read."""
    summary = info.summary
    if summary.sinks:
        return True
    if any(holds_stream(v, 3, concrete=True) for v in summary.sets_attrs.values()):
        return True
    return holds_stream(info.returns, 3, concrete=True) or makes_streams(info.returns)


def makes_streams(value: Value) -> bool:
    """An object (or a class, or one of several) whose class has a method returning a
    stream its own code makes (``VendorBackend().make_stream()``): a literal that picks
    which class a factory returns decides what the rules read on it."""
    options = value.options if isinstance(value, OneOf) else (value,)
    for option in options:
        cls = option.cls if isinstance(option, Instance) else option
        if not isinstance(cls, ClassInfo):
            continue
        for owner in cls.mro():
            if any(holds_stream(m.returns, 1, concrete=True) for m in owner.methods.values()):
                return True
    return False
