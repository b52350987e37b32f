"""The project index: module summaries, per import component, bottom-up, once per run.

A file is analysed alone (flake8 and editors hand over one file, often from stdin), yet
what it imports matters: an adapter module makes the external stream, helpers consume it.
When the interpreter meets ``from pkg.streams import make_ext``, it asks the index for
``pkg.streams`` (:class:`Importer`, the :class:`.facts.ModuleFacts` of one importer).

The index answers as mypy processes import cycles. The modules a summary follows form a
graph (a module follows an import when the target may hand out an external stream or
reach a refused operation: :mod:`..graph`; a package's ``__init__`` follows its own
package). Its strongly connected components are summarised in dependency order: every
module parsed once, a cycle iterated as a whole by a worklist (members in import order,
starting from nothing; a member is summarised again when a summary it used has changed, at
most :data:`CYCLE_ROUNDS` times), and the result is final: shared for the rest of the run
and, with a cache, kept in ``.extstream_cache/``. The order depends on the component alone,
so findings do not depend on which file asked first.

An entry (:class:`.entries.Entry`) records its file's stamp and, for every project module
it asked for, the interface digest it used (mypy's interface hash). A warm run reuses an
entry while its file is unchanged and every digest it used still holds, so an edit that
changes no exported fact re-summarises only the edited module.
"""

from __future__ import annotations

import ast
import weakref
from collections import Counter
from typing import TYPE_CHECKING

from ...findings import Finding
from ...project import modules as mods
from ...project.graph import graph_for
from ...project.modules import Stamp, run_memo
from ...project.pytrees import known_tree
from ..abstract.values import Module
from .components import CYCLE_ROUNDS, Components
from .digests import ABSENT, FINDINGS_KEY, copy_reads, same_presence, text_digest
from .entries import Entry, FindingsEntry, StoredEntry
from .importer import Importer, RunState
from .reuse import Reuse

if TYPE_CHECKING:  # libcst only when a summary is computed, not when one is checked
    import libcst as cst

    from ..interp.interpreter import Interpreter

__all__ = ["CYCLE_ROUNDS", "PARSES", "Entry", "Importer", "ProjectIndex"]

#: Every libcst parse of a project file by the analysis, by path (tests count them).
PARSES: Counter[str] = Counter()


class ProjectIndex(Components, Reuse):
    """Module summaries of one project, memoised in memory (and on disk, if a cache is set).

    The public questions live here; scheduling components is :class:`.components.Components`,
    reusing kept entries :class:`.reuse.Reuse`."""

    def __init__(
        self, src: tuple[str, ...] = (), cache: object | None = None, lasting: bool = False
    ) -> None:
        self.src = src
        self.cache = cache
        #: Whether the summaries of a cycle's computation are kept for a later computation
        #: of it to replay (:meth:`_replay`): with a disk cache, or in memory by an index that
        #: serves later runs in this process (``lasting``: the language server's). A run
        #: that is the process's only one keeps (and pickles) none.
        self.keeps_runs = cache is not None or lasting
        #: Final entries by path; a stored one stays pickled until asked for (:meth:`_revive`).
        self._entries: dict[str, Entry | StoredEntry] = {}
        #: Modules whose stored summary is final but not unpickled yet, by name.
        self._stored_names: dict[str, str] = {}
        #: Files whose stored summaries could not be unpickled: computed from source.
        self._damaged: set[str] = set()
        #: Members of a cycle being computed whose replayed summary could not be unpickled
        #: when first read: summarised from source then, and not stored.
        self._unreadable: set[str] = set()
        #: Current summaries of the members of the cycles being iterated, innermost last.
        self._working: list[dict[str, tuple[Module | None, str]]] = []
        #: Modules summarised from source (not reused) by this index, once per computation.
        self.analysed: list[str] = []
        #: Modules whose analysis went over the budget (:mod:`.budget`), with the budget.
        self.over_budget: dict[str, int] = {}
        #: Digest of every final summary, by module name (see :func:`_digest`).
        self._by_name: dict[str, str] = {}
        #: Which module's summary each function and class was exported by (the file, and
        #: the export that carries it): another module's digest names it, not its contents.
        self._homes: weakref.WeakKeyDictionary[object, tuple[str, str]] = (
            weakref.WeakKeyDictionary()
        )
        #: The members of each import component, by :func:`.digests.group_key`: what a
        #: stored entry's ``group`` names, one tuple shared by all its members.
        self._groups: dict[str, tuple[str, ...]] = {}
        #: Every final summary, by module name: what a stored entry's references resolve to.
        self._modules: dict[str, Module] = {}
        #: The summaries made when each cycle member was last computed, with what they read.
        self._runs: dict[str, list[StoredEntry]] = {}
        #: The digest of each export of the latest summary of each file (final, or of a
        #: cycle member being computed).
        self._exports: dict[str, dict[str, str]] = {}

    def _run(self) -> RunState:
        state = run_memo(f"index:{id(self)}", RunState)
        if state is None:  # outside a run: remember nothing between questions
            state = RunState()
        return state

    def roots(self, path: str) -> tuple[str, ...]:
        return mods.roots_for(path, self.src)

    def graph(self):
        return graph_for(self.src, self.cache is not None)

    def follows(self, path: str) -> bool:
        """Whether a summary follows an import of ``path`` (not the linted file's: it follows
        all): it may hand out external streams or reach a refused operation."""
        graph = self.graph()
        return graph.may_export(path) or graph.may_matter(path)

    def parse(
        self, path: str | None, text: str, tree: ast.Module | None = None
    ) -> tuple[cst.Module, ast.Module | None]:
        """libcst's and CPython's trees of ``text`` (the file ``path``), parsed once per run
        per file, CPython's first (:func:`.parsing.parse`, which raises
        :class:`.parsing.Unparsable`); ``tree`` is CPython's when the caller has it."""
        state = self._run() if path else None
        if state is not None and path is not None:
            known = state.trees.get(path)
            if known is not None and known[0] == text:
                return known[1], known[2] or tree
        from ..source.parsing import parse

        if tree is None and path is not None:
            tree = known_tree(path, text)  # the import graph's, when it read the file
        module, tree = parse(text, tree)
        if path is not None:
            PARSES[path] += 1
            if state is not None:
                state.trees[path] = (text, module, tree)
        return module, tree

    def module(
        self,
        name: str,
        roots: tuple[str, ...],
        used: dict[str, Stamp | None],
        direct: bool = True,
    ) -> Module | None:
        """The summary of project module ``name``; records what it rests on in ``used``."""
        return Importer(self, roots, used, direct).module(name)

    def summary(self, path: str, name: str, roots: tuple[str, ...]) -> tuple[Module | None, str]:
        """The summary of the project file ``path`` and its digest ("" if none)."""
        for working in reversed(self._working):
            if path in working:  # a member of a cycle being iterated: its current summary
                return working[path]
        state = self._run()
        if path not in state.final:
            self._settle_from(path, state)
        entry = self._entries.get(path)
        if isinstance(entry, StoredEntry):
            entry = self._revive(path, state)
        if entry is None:
            return None, ""
        return entry.module, entry.digest

    def export_digest(self, path: str, name: str) -> str:
        """The digest of the export ``name`` of the latest summary of ``path`` ("-": none)."""
        return self._exports.get(path, {}).get(name, ABSENT)

    def learnt(self, path: str, text: str, name: str | None) -> Interpreter | None:
        """The interpreter that summarised ``path`` in this run, taken (at most once), if it
        ran on ``text`` as module ``name``, followed every import (as a lint does), and its
        summary is final as it left it: its learning passes are the lint's, only the
        reporting pass is left to run."""
        kept = self._run().learnt.pop(path, None)
        if kept is None or kept[0] != text or kept[1].module_name != name:
            return None
        return kept[1]

    def prepare(self, path: str) -> None:
        """Make final, now, the summaries of everything the file ``path`` imports (the CLI
        does this before its workers fork, so that they share them)."""
        facts = self.graph().facts(path)
        if facts is None:
            return
        state = self._run()
        for link in facts.links:
            if link not in state.final:
                self._settle_from(link, state)

    def known_findings(self, path: str, text: str) -> list[Finding] | None:
        """The findings of the file ``path`` read as ``text``, kept from an earlier lint, if
        the text and everything they rest on (stamps looked at, digests of the summaries
        used) are unchanged; ``None`` otherwise. Only with a cache."""
        if self.cache is None:
            return None
        kept = self.cache.load(path, FINDINGS_KEY)  # type: ignore[attr-defined]
        if not isinstance(kept, FindingsEntry):
            return None
        try:
            if kept.text != text_digest(text):
                return None
            if not same_presence(kept.deps):
                return None
            if not self._readings_hold(kept.links, kept.reads, None, self._run()):
                return None
            return [Finding(*finding) for finding in kept.findings]
        except Exception:  # a damaged entry: analysed again
            return None

    def keep_findings(
        self, path: str, text: str, importer: Importer, findings: list[Finding]
    ) -> None:
        """Keep the findings of a file linted, with what they rest on (with a cache)."""
        if self.cache is None:
            return
        links = {link: digest or "" for link, digest in importer.links.items()}
        kept = FindingsEntry(
            text_digest(text),
            dict(importer.used),
            links,
            copy_reads(importer.reads),
            [(f.line, f.col, f.code, f.message) for f in findings],
        )
        self.cache.store(path, kept, FINDINGS_KEY)  # type: ignore[attr-defined]
