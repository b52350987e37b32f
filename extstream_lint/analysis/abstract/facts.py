"""The seam between the interpreter and the project model: how a module's facts are asked for.

The interpreter analyses one module and knows nothing of files, roots, caches or import
graphs. When it meets an import of another module it asks an object of this protocol for
that module's facts, by absolute dotted name, and gets a :class:`.values.Module` (the names
the module exports, as abstract values) or ``None`` (not a project module, or not worth
following). What the answer depends on (which files, which stamps) is the provider's to
record: one provider is handed to the interpreter of each module, bound to that importer.

Keeping these two methods the only contact lets the project model change how it finds,
orders, caches and bounds its work without touching the interpreter, and lets the
interpreter be split or tested alone with a dict-backed provider.
"""

from __future__ import annotations

from typing import Protocol

from .values import Module


class ModuleFacts(Protocol):
    """What an importer may ask of the project: one module's facts, by its dotted name."""

    def module(self, name: str) -> Module | None:
        """The facts of project module ``name`` (absolute, dotted), or ``None``."""
        ...

    def remaps(self, module: str) -> bool:
        """May importing project module ``module`` remap ``torch.cuda`` (it, a package
        above it, or what they import imports ``transfer_to_npu``)? A cheap question asked
        before the summary of a package above a module is: ``False`` spares it."""
        ...

    def read(self, module: str, name: str | None) -> None:
        """The interpreter read the export ``name`` of ``module`` (a module this provider
        handed out; ``None``: all its exports, as ``from m import *`` does). What an
        importer's result depends on is then those names, not all the module says."""
        ...

    def holds(self, module: str, name: str) -> bool:
        """Whether ``module`` (handed out by this provider) exports ``name``, answered
        without reading its summary if it is not read yet (:mod:`..driver.shells`)."""
        ...
