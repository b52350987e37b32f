"""Values that hold no other value: a stream (real, or a summarised function's parameter),
where a symbolic value comes from, a place in another file, a reference to a torch name, a
literal.

They sit below :mod:`.values` (which joins them with every other kind) and :mod:`.made`
(where an autograd graph was computed, which names streams), so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .records import renewed

__all__ = [
    "CALLER_CURRENT",
    "PRESENT_HOW",
    "Const",
    "ExtStream",
    "GlobalSlot",
    "ParamRef",
    "Ref",
    "Remote",
    "present",
]


@dataclass(frozen=True)
class ExtStream:
    """A value that wraps an external stream, on every path (``must``) or on some (may)."""

    must: bool
    #: How the value became external, for messages: "created", "annotated", ...
    how: str
    #: The node where it became external (a call, ``with``, ``def`` or annotated assignment);
    #: its line goes into the message once positions are known.
    origin: object = field(compare=False)
    #: "ExternalStream" for the class, "external stream" for ``Stream(stream_ptr=...)``.
    noun: str = "ExternalStream"
    #: Set when the value is the *current* stream (``torch.npu.current_stream()`` while
    #: an external stream is current): the name that was made current.
    current_of: str | None = None
    #: ``None`` on some paths. Harmless for method calls (``None`` has no ``synchronize``),
    #: but ``torch.npu.stream(None)`` is a no-op, so making it current is only a "may".
    nullable: bool = False
    #: Set while a function body is summarised: the value is whatever the caller passes
    #: as this parameter (or the caller's current stream), not an external stream yet.
    #: Findings on it become the function's sinks (:mod:`.summaries`), never reports.
    param: ParamRef | None = None
    #: Other parameters it may be (``s = a if flag else b``): each gets a "may" sink.
    also: tuple[ParamRef, ...] = ()
    #: The NPU indices it may be on, over paths (:mod:`.devices`); None: not visible.
    device: frozenset[object] | None = None

    def weakened(self) -> ExtStream:
        return renewed(self, must=False) if self.must else self

    def refs(self) -> tuple[ParamRef, ...]:
        """Every parameter path this symbolic value may be (none for a real stream)."""
        return () if self.param is None else (self.param, *self.also)


#: ``how`` of a copy's symbolic parameter a caller gave a stream: not ``None`` and true, so
#: ``stream is None``, ``if stream:`` and ``stream or ...`` are decided in the copy
#: (:mod:`..interp.nones`). Kept in ``how`` (a symbolic value's is never shown), not in a
#: field of its own: every ``replace`` of a stream would pay for one more.
PRESENT_HOW = "passed, not None"


def present(value: object) -> bool:
    """A copy's parameter the caller gave a stream, on every path (:data:`PRESENT_HOW`)."""
    return (
        type(value) is ExtStream and value.how == PRESENT_HOW and value.must and not value.nullable
    )


@dataclass(frozen=True)
class ParamRef:
    """Where a summarised function's symbolic value comes from: ``owner``'s parameter
    ``index`` (``-1``: the caller's current stream), then the attributes in ``path``
    (``"[]"`` stands for "an element of", ``"[v]"`` for "a value read by subscript")."""

    owner: object
    index: int
    path: tuple[str, ...] = ()

    def child(self, step: str) -> ParamRef:
        if self.path[-1:] == _ANY_REACHED:  # any value reached from here: so is its step's
            return self
        return ParamRef(self.owner, self.index, (*self.path, step))


#: The last step of a widened path (:mod:`.widening`): the value there or any reached from it.
REACHED = "<*>"
_ANY_REACHED = (REACHED,)


CALLER_CURRENT = -1


@dataclass(frozen=True)
class GlobalSlot:
    """The owner of a :class:`ParamRef` that a summarised body read from a module global
    (``_streams[key]``, ``_state.stream``, a name rebound through ``global``) where the
    module's own value holds nothing: resolved in each caller's view of that global, after
    the calls it made before (:meth:`..interp.registries.Registries.global_view`)."""

    module: str
    #: The global, or the dotted path under it (``"_state.stream"``).
    name: str


@dataclass(frozen=True)
class Remote:
    """A place in another file of the project, for messages: ``(created pkg/streams.py:16)``."""

    path: str
    line: int


@dataclass(frozen=True)
class Ref:
    """A reference to a module, class or function, by canonical qualified name."""

    qualname: str


@dataclass(frozen=True)
class Const:
    """A literal small enough to matter for a pointer argument (int, bool, None, float, str)."""

    value: object
