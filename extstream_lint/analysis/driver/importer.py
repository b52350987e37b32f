"""What one importing module sees of the project index, and what the index keeps for one run.

The interpreter asks an :class:`Importer` for a module by dotted name; the importer records
what the answer rests on (paths probed, digests and names read), which is what an entry or
a kept lint is checked against later (:mod:`.reuse`).
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING, Protocol

from ...project import modules as mods
from ...project.modules import NEVER_PROJECT as _NEVER_PROJECT
from ...project.modules import Stamp
from ..abstract.values import Module
from .digests import ABSENT, copy_reads

if TYPE_CHECKING:  # libcst only when a summary is computed, not when one is checked
    import libcst as cst

    from ...project.graph import ImportGraph
    from ..interp.interpreter import Interpreter
    from .entries import Linted

__all__ = [
    "REMAPS",
    "Importer",
    "RunState",
    "Summaries",
    "head_package",
    "package_of",
    "remaps_answer",
]

#: How :meth:`Importer.remaps` records its answer among the links (a prefix no path has),
#: with the answer as the "digest": "1" may remap, "0" may not. A kept entry holds while
#: the text graph gives the same answer (:meth:`.reuse.Reuse._readings_hold`), so an edit
#: anywhere below a package that makes it import ``transfer_to_npu`` reaches its modules.
REMAPS = "\0remaps:"


def remaps_answer(graph: ImportGraph, path: str) -> str:
    """The text graph's answer for ``path`` as :data:`REMAPS` records it."""
    return "1" if graph.may_transfer(path) else "0"


class Summaries(Protocol):
    """The four questions an importing module asks the project index
    (:class:`.index.ProjectIndex` answers them; named here so this module need not import it)."""

    def follows(self, path: str) -> bool: ...
    def summary(
        self, path: str, name: str, roots: tuple[str, ...]
    ) -> tuple[Module | None, str]: ...
    def export_digest(self, path: str, name: str) -> str: ...
    def graph(self) -> ImportGraph: ...


class Importer:
    """The :class:`.facts.ModuleFacts` of one importing module: the index, seen from it.

    Bound to the importer's roots, its follow policy (``direct``) and the dependencies it
    records (``used``: paths looked at; ``links``: modules asked for, with the digest
    used), so the interpreter asks only for a module name.
    """

    def __init__(
        self,
        index: Summaries,
        roots: tuple[str, ...],
        used: dict[str, Stamp | None] | None = None,
        direct: bool | str = True,
    ) -> None:
        self.index = index
        self.roots = roots
        #: Paths looked at to resolve the names asked for, with their stamps.
        self.used: dict[str, Stamp | None] = {} if used is None else used
        #: Project files asked for: the digest of the summary used, ``None`` if not followed.
        self.links: dict[str, str | None] = {}
        #: Of each file in ``links`` with a summary, the digests of the names read from it
        #: (``None``: all of them).
        self.reads: dict[str, dict[str, str] | None] = {}
        #: The file of each module handed out, by name.
        self._paths: dict[str, str] = {}
        #: True: the file being linted, follow all its project imports; a package name: a
        #: package's ``__init__`` (re-exports), follow all imports within that package.
        self.direct = direct
        #: Whether an import was not followed (``direct`` decided it): a lint of the same
        #: module, which follows all, would see more than this summary did.
        self.refused = False

    def module(self, name: str) -> Module | None:
        head = name.split(".", 1)[0]
        if head in _NEVER_PROJECT:
            return None
        path, probes = mods.locate_module(name, self.roots)
        self.used.update(probes)  # a module that appears later, where none was, invalidates
        if path is None:
            if mods.namespace_package(name, self.roots):
                return Module(name)  # PEP 420: nothing of its own, its submodules by attribute
            return None
        path = os.path.abspath(path)
        direct = self.direct is True or head == self.direct
        if not direct and not self.index.follows(path):
            self.links[path] = None
            self.refused = True
            return None
        module, digest = self.index.summary(path, name, self.roots)
        self.links[path] = digest
        if module is not None:
            self._paths[name] = path
            self.reads.setdefault(path, {})
        return module

    def remaps(self, name: str) -> bool:
        """May importing project module ``name`` remap ``torch.cuda`` (it, a package above
        it, or what they run imports ``transfer_to_npu``, by the text graph)? Asked of the
        packages above a module and above each module it imports, before their summaries
        are, so that a project that never mentions ``transfer_to_npu`` asks for none."""
        if name.split(".", 1)[0] in _NEVER_PROJECT:
            return False
        path, probes = mods.locate_module(name, self.roots)
        self.used.update(probes)
        if path is None:
            return False
        path = os.path.abspath(path)
        answer = remaps_answer(self.index.graph(), path)
        self.links[REMAPS + path] = answer
        return answer == "1"

    def as_linted(self) -> None:
        """From now on, the importer of the file being linted (which follows all its
        imports), recording into its own copies: what it recorded so far is also its
        module's summary entry, which the lint must not change."""
        self.direct = True
        self.used, self.links = dict(self.used), dict(self.links)
        self.reads = copy_reads(self.reads)

    def read(self, module: str, name: str | None) -> None:
        path = self._paths.get(module)
        if path is None:
            return  # not a summary handed out by this importer: nothing rests on it
        if name is None:
            self.reads[path] = None
            return
        names = self.reads.get(path)
        if names is not None and name not in names:
            names[name] = self.index.export_digest(path, name)

    def holds(self, module: str, name: str) -> bool:
        path = self._paths.get(module)
        if path is None:
            return True  # not handed out here: its summary is at hand, read it
        return self.index.export_digest(path, name) != ABSENT


class RunState:
    """What the index learns for the length of one run."""

    def __init__(self) -> None:
        #: Files whose entry is final for this run (reused or computed).
        self.final: set[str] = set()
        #: Parsed trees of project files by path, with the text they were parsed from:
        #: the summary and the lint of the same file share one parse.
        self.trees: dict[str, tuple[str, cst.Module, ast.Module | None]] = {}
        #: The interpreter of each summary that saw all its module's imports, with the text
        #: it ran on, until the lint of that file takes it (:meth:`ProjectIndex.learnt`).
        self.learnt: dict[str, tuple[str, Interpreter]] = {}
        #: The reverse: the summary entry the lint of a file built before any importer asked
        #: for it, until that summary takes it (:mod:`.linted`).
        self.linted: dict[str, Linted] = {}


def package_of(path: str, roots: tuple[str, ...]) -> str | None:
    """The top-level package a package's ``__init__`` follows in full; ``None`` otherwise."""
    if os.path.basename(path) != "__init__.py":
        return None
    return head_package(path, roots)


def head_package(path: str, roots: tuple[str, ...]) -> str | None:
    name = mods.module_name(path, roots)
    return name.split(".", 1)[0] if name else None
