"""Values that carry a callable or a receiver to where it is used: ``functools.partial``, a
refused method read and kept for later, ``__getattr__`` delegation.

Plain data, kept apart from :mod:`.values` (which joins them and re-exports them) so that
module stays one screenful of lattice: what these hold is any value, named here only for
type checkers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .values import Value

__all__ = ["Forward", "Partial", "StreamMethod"]


@dataclass(frozen=True)
class Partial:
    """``functools.partial(f, *args, **kwargs)``: calling it calls ``f`` with them first."""

    func: Value
    args: tuple[object, ...]
    keywords: tuple[tuple[str, object], ...]
    #: The ``partial(...)`` call, for messages: where a torch method got its receiver.
    at: object = field(default=None, compare=False)
    #: ``f`` as written (``torch.npu.Stream.synchronize``), for messages.
    text: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class StreamMethod:
    """A refused method read from a stream or handle and kept for later (``poll = ext.query``,
    ``getattr(ext, "synchronize")``): a value that carries its receiver, so calling it is the
    method call on ``receiver``, checked then, with the current stream of then."""

    method: str
    #: The stream, handle or unknown object (``None``: ``side.wait_stream`` on a managed one).
    receiver: Value
    #: How the source names the receiver (``ext``), for messages.
    text: str | None
    #: Where the method was read (a libcst node or a :class:`Remote`): the message names it.
    bound_at: object = field(compare=False)


@dataclass(frozen=True)
class Forward:
    """``getattr(target, name)`` in a ``__getattr__``: every attribute the class lacks is
    read from ``target`` (delegation; a "may", since the class may still answer some)."""

    target: Value
