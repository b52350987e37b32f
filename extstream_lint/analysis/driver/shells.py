"""Summaries revived from the cache lazily: a module whose facts are unpickled when first read.

Asking for one module of a 2,500-module import cycle must not unpickle all of them (it did:
7 s on transformers). A stored summary is revived as a :class:`Shell` that readers hold like
any module; its fields are filled on first read. :func:`fill_held` puts a summary's facts into
the module its readers already hold, lazily when the summary is itself a shell.
"""

from __future__ import annotations

from collections.abc import Callable

from ..abstract.values import Module

__all__ = ["Shell", "fill_held"]


class Shell(Module):
    """A final module whose stored summary is unpickled when its facts are first read.

    Readers hold it (a stored summary names it) and the index registers it, as any final
    module; its fields are filled by the first read of any of them, and from then on it is
    a plain :class:`.values.Module` (its class is switched back), so later reads cost
    nothing more. Setting its fields replaces them without unpickling."""

    def __init__(self, name: str) -> None:  # no fields yet: the properties fill them
        self.__dict__["name"] = name

    def wake_with(self, fill: Callable[[Module], None]) -> None:
        self.__dict__["fill_held"] = fill

    def _wake(self, load: bool = True) -> None:
        fill = self.__dict__.get("fill_held")
        if load and fill is not None:
            fill(self)  # its first assignment makes this a plain module (below); if it
            return  # raises first, the next read tries again, and raises again
        self.__dict__.pop("fill_held", None)
        self.__class__ = Module  # type: ignore[assignment]


def _lazy_field(field: str) -> property:
    def read(self: Shell) -> object:
        self._wake()
        return getattr(self, field)

    def write(self: Shell, value: object) -> None:
        self._wake(load=False)
        setattr(self, field, value)

    return property(read, write)


Shell.exports = _lazy_field("exports")  # type: ignore[assignment]
Shell.all_names = _lazy_field("all_names")  # type: ignore[assignment]
Shell.path = _lazy_field("path")  # type: ignore[assignment]


def fill_held(held: Module, summary: Module) -> Module:
    """``held``, which readers hold, now with what ``summary`` says of the same module; a
    summary not unpickled yet (a replay's :class:`Shell`) makes ``held`` one, unpickled
    into when first read: a cycle computed again after an edit replays thousands of
    summaries that no one reads."""
    if type(summary) is Shell and "fill_held" in summary.__dict__:
        held.__class__ = Shell
        held.wake_with(summary.__dict__["fill_held"])  # type: ignore[attr-defined]
        return held
    held.exports, held.all_names, held.path = summary.exports, summary.all_names, summary.path
    return held
