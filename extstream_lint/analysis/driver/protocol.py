"""What the parts of the project index ask of one another, as a type (PEP 544).

The index is one object, :class:`.index.ProjectIndex`, assembled from two mixins:
scheduling import components (:class:`.components.Components`) and reusing kept entries
(:class:`.reuse.Reuse`). Each mixin calls the other's methods and reads the index's state,
so for type checkers each needs the whole object. They name it here instead of importing
:mod:`.index` (which imports them): no import circle, not even one seen only by type checkers.
Nothing here runs: the class is a type, never instantiated.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ..abstract.values import Module
from .entries import Entry, StoredEntry
from .importer import RunState

if TYPE_CHECKING:
    import libcst as cst

    from ...project.graph import ImportGraph

__all__ = ["Index"]


class Index(Protocol):
    """The project index as its mixins see it: its state (:meth:`.index.ProjectIndex.__init__`
    says what each field holds) and the methods one part calls on another."""

    src: tuple[str, ...]
    cache: object | None
    keeps_runs: bool
    analysed: list[str]
    over_budget: dict[str, int]
    _entries: dict[str, Entry | StoredEntry]
    _stored_names: dict[str, str]
    _damaged: set[str]
    _unreadable: set[str]
    _working: list[dict[str, tuple[Module | None, str]]]
    _by_name: dict[str, str]
    _homes: weakref.WeakKeyDictionary[object, tuple[str, str]]
    _groups: dict[str, tuple[str, ...]]
    _modules: dict[str, Module]
    _runs: dict[str, list[StoredEntry]]
    _exports: dict[str, dict[str, str]]

    # The index's own questions (:mod:`.index`).
    def _run(self) -> RunState: ...
    def roots(self, path: str) -> tuple[str, ...]: ...
    def graph(self) -> ImportGraph: ...
    def follows(self, path: str) -> bool: ...
    def parse(
        self, path: str | None, text: str, tree: ast.Module | None = None
    ) -> tuple[cst.Module, ast.Module | None]: ...

    # Scheduling components (:mod:`.components`).
    def _settle_from(self, path: str, state: RunState) -> None: ...
    def _prepare(self, path: str) -> tuple[str, cst.Module, str, ast.Module | None] | None: ...
    def _recompute(self, path: str, group: tuple[str, ...], state: RunState) -> None: ...
    def _summarise(
        self,
        path: str,
        name: str,
        tree: cst.Module,
        text: str,
        python_tree: ast.Module | None = None,
    ) -> Entry | None: ...

    # Reusing kept entries (:mod:`.reuse`).
    def _body(self, module: Module, members: dict[str, Module]) -> bytes | None: ...
    def _foreign(self, path: str) -> Callable[[object], tuple[str, str, str] | None]: ...
    def _own(self, path: str, module: Module) -> None: ...
    def _replay(
        self, member: str, members: dict[str, Module], state: RunState
    ) -> tuple[Entry | None, StoredEntry | None]: ...
    def _reusable(
        self, members: tuple[str, ...], state: RunState, stored: dict[str, StoredEntry]
    ) -> bool: ...
    def _revive(self, path: str, state: RunState) -> Entry | None: ...
