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
import hashlib
import io
import os
import pickle
import weakref
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .. import modules as mods
from .. import safe_pickle
from ..findings import Finding
from ..graph import components, graph_for
from ..modules import NEVER_PROJECT as _NEVER_PROJECT
from ..modules import Stamp, run_memo, stamp_of
from ..pytrees import known_tree
from ..sources import read_text
from .entries import Entry, FindingsEntry, StoredEntry
from .values import ClassInfo, ExtStream, FunctionInfo, Module, Summary, Value

if TYPE_CHECKING:  # libcst only when a summary is computed, not when one is checked
    import libcst as cst

    from .interpreter import Interpreter

__all__ = ["CYCLE_ROUNDS", "PARSES", "Entry", "Importer", "ProjectIndex"]

#: Summaries of one member of an import cycle, at most, while computing the cycle.
CYCLE_ROUNDS = 4
#: Every libcst parse of a project file by the analysis, by path (tests count them).
PARSES: Counter[str] = Counter()


class Importer:
    """The :class:`.facts.ModuleFacts` of one importing module: the index, seen from it.

    Bound to the importer's roots, its follow policy (``direct``) and the dependencies it
    records (``used``: paths looked at; ``links``: modules asked for, with the digest
    used), so the interpreter asks only for a module name.
    """

    def __init__(
        self,
        index: ProjectIndex,
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

    def as_linted(self) -> None:
        """From now on, the importer of the file being linted (which follows all its
        imports), recording into its own copies: what it recorded so far is also its
        module's summary entry, which the lint must not change."""
        self.direct = True
        self.used, self.links = dict(self.used), dict(self.links)
        self.reads = _copy_reads(self.reads)

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


class _RunState:
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


class ProjectIndex:
    """Module summaries of one project, memoised in memory (and on disk, if a cache is set)."""

    def __init__(self, src: tuple[str, ...] = (), cache: object | None = None) -> None:
        self.src = src
        self.cache = cache
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
        #: Every final summary, by module name: what a stored entry's references resolve to.
        self._modules: dict[str, Module] = {}
        #: The summaries made when each cycle member was last computed, with what they read.
        self._runs: dict[str, list[StoredEntry]] = {}
        #: The digest of each export of the latest summary of each file (final, or of a
        #: cycle member being computed).
        self._exports: dict[str, dict[str, str]] = {}

    # --- the run ------------------------------------------------------------------------

    def _run(self) -> _RunState:
        state = run_memo(f"index:{id(self)}", _RunState)
        if state is None:  # outside a run: remember nothing between questions
            state = _RunState()
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
        from .parsing import parse

        if tree is None and path is not None:
            tree = known_tree(path, text)  # the import graph's, when it read the file
        module, tree = parse(text, tree)
        if path is not None:
            PARSES[path] += 1
            if state is not None:
                state.trees[path] = (text, module, tree)
        return module, tree

    # --- lookups by the interpreter --------------------------------------------------------

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
        return self._exports.get(path, {}).get(name, _ABSENT)

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

    # --- findings of the files linted, kept like summaries ----------------------------------

    def known_findings(self, path: str, text: str) -> list[Finding] | None:
        """The findings of the file ``path`` read as ``text``, kept from an earlier lint, if
        the text and everything they rest on (stamps looked at, digests of the summaries
        used) are unchanged; ``None`` otherwise. Only with a cache."""
        if self.cache is None:
            return None
        kept = self.cache.load(path, _FINDINGS)  # type: ignore[attr-defined]
        if not isinstance(kept, FindingsEntry):
            return None
        try:
            if kept.text != _text_digest(text):
                return None
            if not _same_presence(kept.deps):
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
            _text_digest(text),
            dict(importer.used),
            links,
            _copy_reads(importer.reads),
            [(f.line, f.col, f.code, f.message) for f in findings],
        )
        self.cache.store(path, kept, _FINDINGS)  # type: ignore[attr-defined]

    # --- components, bottom-up --------------------------------------------------------------

    def _settle_from(self, path: str, state: _RunState) -> None:
        """Summarise every component ``path`` reaches that is not final yet, bottom-up."""
        busy = {member for working in self._working for member in working}

        def followed(node: str) -> list[str]:
            if node in busy:
                return []  # an import the text graph did not show led back into a cycle
            return self._followed_links(node)

        def done(node: str) -> bool:
            return node in state.final or node in busy

        for members in components(path, followed, done):
            members = tuple(m for m in members if m not in busy)
            if members:
                self._settle(members, state)

    def _followed_links(self, path: str, top_only: bool = False) -> list[str]:
        """The project files the summary of ``path`` follows, by the text graph (with
        ``top_only``, those its top-level imports run)."""
        facts = self.graph().facts(path)
        if facts is None:
            return []
        roots = self.roots(path)
        package = _package_of(path, roots)
        out = []
        for link in facts.links[: facts.strong] if top_only else facts.links:
            if (package is not None and _head(link, roots) == package) or self.follows(link):
                out.append(link)
        return out

    def _settle(self, members: tuple[str, ...], state: _RunState) -> None:
        """Make the entries of one component final: reused when still valid, otherwise
        computed together, to a fixpoint if the component is a cycle."""
        previous: dict[str, StoredEntry] = {}
        if self._reusable(members, state, previous):
            state.final.update(members)
            return
        current = {member: self._pending(member) for member in members}
        results: dict[str, Entry | None] = {}
        bodies: dict[str, bytes] = {}
        self._working.append(current)
        try:
            summarised = self._iterate(self._order(members), current, results, bodies, state)
        finally:
            self._working.pop()
        self.analysed.extend(summarised)
        # Each member keeps its own digest: a dependent that reaches a member through
        # another (``a.b.f``) asks for it by name (:meth:`.interp.classes.Classes._attribute_of`),
        # so it records that member and is recomputed when that member's facts change.
        for member in members:
            entry = results.get(member)
            state.final.add(member)
            if entry is None:
                self._entries.pop(member, None)
                continue
            entry.group = members
            entry.digest = current[member][1]
            for link in entry.links:  # what the last summary used, now final
                if link in current:
                    found = results.get(link)
                    entry.links[link] = current[link][1] if found is not None else None
                    names = entry.reads.get(link)
                    if found is not None and names is not None:
                        entry.reads[link] = {n: found.exports.get(n, _ABSENT) for n in names}
            self._entries[member] = entry
            self._exports[member] = entry.exports
            self._by_name[entry.module.name] = entry.digest
            self._modules[entry.module.name] = entry.module
        unreadable = self._unreadable.intersection(members)  # bodies of damaged replays
        self._unreadable.difference_update(unreadable)
        if self.cache is not None:
            for member in members:
                if member in unreadable:
                    self.cache.store(member, None)  # type: ignore[attr-defined]
                elif member in self._entries and member in bodies:
                    stored = _stored(self._entries[member], bodies[member])
                    if previous.get(member) != stored:  # an edit rewrites what it changed
                        self.cache.store(member, stored)  # type: ignore[attr-defined]

    def _pending(self, path: str) -> tuple[Module | None, str]:
        """A member of a component before its first summary: the module its readers hold
        for the whole computation, empty until then and filled in place by each summary
        that changes (:func:`_fill`), so that a reader that only holds it (``import m``,
        ``from pkg import m``) never waits for it; what a reader reads of it is recorded
        by name, and a reader whose names change is summarised again."""
        self._exports[path] = {}
        name = mods.module_name(path, self.roots(path))
        return (Module(name), _PENDING) if name is not None else (None, "")

    def _body(self, module: Module, members: dict[str, Module]) -> bytes | None:
        """The fields of ``module``'s summary, pickled with every project module they hold
        (a final one, or a member of the cycle being computed) named, not copied: resolved
        by :meth:`_revived`. ``None`` if they cannot be pickled (then not kept)."""
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)

        def persistent_id(value: object) -> object:
            if isinstance(value, Module) and (
                value.name in members or self._modules.get(value.name) is value
            ):
                return ("module", value.name)
            return None

        pickler.persistent_id = persistent_id  # type: ignore[method-assign]
        try:
            pickler.dump((module.exports, module.all_names, module.path))
        except Exception:  # unpicklable: simply not kept
            return None
        return buffer.getvalue()

    def _foreign(self, path: str) -> Callable[[object], tuple[str, str, str] | None]:
        """For the digest of ``path``'s summary: a function or class another module
        exported, as (that module's file, the export, the export's digest as it is now);
        ``None`` for one of ``path``'s own. Another module's facts then count by their
        digest, as a held module does, not by the objects that carry them: a summary
        revived from the cache holds copies where a fresh one shares, and the same facts
        must have the same digest either way."""
        homes, exports = self._homes, self._exports

        def foreign(record: object) -> tuple[str, str, str] | None:
            home = homes.get(record)
            if home is None or home[0] == path:
                return None
            return home[0], home[1], exports.get(home[0], {}).get(home[1], _ABSENT)

        return foreign

    def _own(self, path: str, module: Module) -> None:
        """Record ``path`` as the home of the functions and classes ``module`` exports (and
        of the classes' methods, under the class's name)."""
        homes = self._homes
        for name, value in module.exports.items():
            kind = type(value)
            if kind is FunctionInfo:
                homes.setdefault(value, (path, name))
            elif kind is ClassInfo:
                homes.setdefault(value, (path, name))
                for method in value.methods.values():  # type: ignore[union-attr]
                    homes.setdefault(method, (path, name))

    def _revived(
        self, path: str, stored: StoredEntry, module: Module, members: dict[str, Module]
    ) -> Entry:
        """The entry ``stored`` describes, its summary's fields put into ``module`` (when
        first used, if it is a :class:`_Shell`): the modules it names are ``members`` (by
        name) or final summaries. Raises on a name that is neither."""

        def resolve(reference: object) -> Module:
            kind, name = reference  # type: ignore[misc]
            found = members.get(name) or self._module_named(name)
            if kind != "module" or found is None:
                raise KeyError(f"a stored summary names {name!r}, which is not known")
            return found

        def fill(target: Module) -> None:
            body = safe_pickle.loads(stored.body, resolve)
            target.exports, target.all_names, target.path = body  # type: ignore[misc]
            self._own(path, target)

        if isinstance(module, _Shell):
            module.wake_with(lambda target: self._woken(path, stored, target, fill))
        else:
            fill(module)
        entry = Entry(module, stored.stamp, dict(stored.deps), stored.external, dict(stored.links))
        entry.digest, entry.group = stored.digest, stored.group
        entry.exports, entry.reads = dict(stored.exports), _copy_reads(stored.reads)
        return entry

    def _woken(
        self, path: str, stored: StoredEntry, module: Module, fill: Callable[[Module], None]
    ) -> None:
        """Unpickle the summary of ``path`` into ``module``, asked for its facts for the
        first time. One that cannot be read (found only now) is computed from source and
        never stored again: a replay, while its cycle is computed, alone (its readings
        held: the same summary); a final one with its whole component, as :meth:`_revive`
        does. ``module``, which readers hold, gets what the computation found."""
        try:
            fill(module)
            return
        except Exception:  # a damaged body: computed again
            pass
        if any(path in working for working in self._working):
            self._unreadable.add(path)
            prepared = self._prepare(path)
            entry = self._summarise(path, *prepared) if prepared is not None else None
            _fill(module, entry.module if entry is not None else Module(stored.name))
            return
        state = self._run()
        current = self._entries.get(path)
        if not isinstance(current, Entry) or current.module is module:
            # A replay's record has no group yet (set when its cycle is final): the entry's.
            group = current.group if isinstance(current, Entry) and current.group else None
            self._recompute(path, group or stored.group or (path,), state)
            current = self._entries.get(path)
        _fill(module, current.module if isinstance(current, Entry) else Module(stored.name))

    def _recompute(self, path: str, group: tuple[str, ...], state: _RunState) -> None:
        """Compute the component of ``path`` from source: a stored summary of it could
        not be read. Its members' kept replays go too (they may be what was damaged)."""
        for member in group:
            entry = self._entries.pop(member, None)
            state.final.discard(member)
            if isinstance(entry, StoredEntry):
                self._stored_names.pop(entry.name, None)
            self._runs[member] = []
            if self.cache is not None:
                self.cache.store(member, [], _RUNS)  # type: ignore[attr-defined]
        self._damaged.update(group)
        self._settle_from(path, state)

    def _loaded(self, found: dict[str, Entry | StoredEntry]) -> dict[str, Entry]:
        """The entries of one component, the stored ones revived as shells: each summary is
        unpickled when first used (:class:`_Shell`), so asking for one module of a
        2,500-module cycle does not unpickle all of them; their references to final
        summaries resolve to the component's own modules or to those already final
        (every link was settled by the check)."""
        shells = {
            entry.name: _Shell(entry.name)
            for entry in found.values()
            if isinstance(entry, StoredEntry)
        }
        members = {
            entry.module.name: entry.module for entry in found.values() if isinstance(entry, Entry)
        }
        members.update(shells)
        return {
            path: entry
            if isinstance(entry, Entry)
            else self._revived(path, entry, shells[entry.name], members)
            for path, entry in found.items()
        }

    def _order(self, members: tuple[str, ...]) -> list[str]:
        """The members, each after those its top-level imports run, as far as the cycle
        allows (a depth-first post-order from the sorted members): the order depends on
        the component alone, never on which file asked first.

        Imports inside functions do not count, as in mypy's ordering of an import cycle:
        they are how real projects break cycles (the standard library is full of them),
        and a module is summarised before what it imports only there, so that readers
        that wait for a summary are the rare ones (on the standard library, about a third
        fewer summaries than ordering by every import)."""
        inside = set(members)
        seen: set[str] = set()
        order: list[str] = []
        for root in members:  # sorted by components()
            if root in seen:
                continue
            seen.add(root)
            frames = [(root, iter(sorted(self._followed_links(root, top_only=True))))]
            while frames:
                node, pending = frames[-1]
                following = next(pending, None)
                if following is None:
                    frames.pop()
                    order.append(node)
                elif following in inside and following not in seen:
                    seen.add(following)
                    strong = self._followed_links(following, top_only=True)
                    frames.append((following, iter(sorted(strong))))
        return order

    def _iterate(
        self,
        order: list[str],
        current: dict[str, tuple[Module | None, str]],
        results: dict[str, Entry | None],
        bodies: dict[str, bytes],
        state: _RunState,
    ) -> list[str]:
        """Summarise the members of one component to a fixpoint, by a worklist; returns
        the members summarised from source.

        Each member is summarised once, in ``order``, seeing the summaries of the members
        done before it (nothing yet of the others). A member is summarised again only
        when a summary it used has changed since (its digest), at most
        :data:`CYCLE_ROUNDS` times in all: a cycle costs what feeds back in it, not a
        round of every member per step of propagation.

        Every summary made in a cycle is kept with what it read (:meth:`_replay`): computing the
        component again after an edit replays, without parsing, each summary whose file
        and readings are unchanged, so the result is exactly that of a fresh computation
        and costs what the edit changed.
        """
        position = {member: i for i, member in enumerate(order)}
        # A module alone is recomputed exactly when its entry no longer holds, and a
        # replay checks the same: only the members of a cycle keep their summaries.
        cycle = len(order) > 1
        pending = set(order)
        runs: Counter[str] = Counter()
        texts: dict[str, tuple[str, cst.Module, str, ast.Module | None] | None] = {}
        made: dict[str, list[StoredEntry]] = {member: [] for member in order}
        #: The members' current modules by name; who read each member in its latest summary.
        members: dict[str, Module] = {m.name: m for m, _ in current.values() if m is not None}
        held = {member: module for member, (module, _) in current.items() if module is not None}
        readers: dict[str, set[str]] = {}
        while pending:
            member = min(pending, key=position.__getitem__)
            pending.discard(member)
            runs[member] += 1
            entry, kept = self._replay(member, members, state) if cycle else (None, None)
            if entry is not None:
                state.learnt.pop(member, None)  # replayed: no interpreter ran
            else:
                if member not in texts:
                    texts[member] = self._prepare(member)
                prepared = texts[member]
                entry = self._summarise(member, *prepared) if prepared is not None else None
                body = self._body(entry.module, members) if entry is not None else None
                kept = _stored(entry, body) if entry is not None and body is not None else None
            before = results.get(member)
            for link in before.links if before is not None else ():
                readers[link].discard(member)
            for link in entry.links if entry is not None else ():
                readers.setdefault(link, set()).add(member)
            results[member] = entry
            if kept is not None:
                made[member].append(kept)
                bodies[member] = kept.body
            else:
                bodies.pop(member, None)
            now = (entry.module, entry.digest) if entry is not None else (None, "")
            if now[1] == current[member][1]:
                continue  # the same facts: keep the module the others already hold
            if now[0] is not None and member in held:
                entry.module = _fill(held[member], now[0])  # type: ignore[union-attr]
                now = (entry.module, now[1])  # type: ignore[union-attr]
            if current[member][0] is not None:
                members.pop(current[member][0].name, None)
            if now[0] is not None:
                members[now[0].name] = now[0]
            current[member] = now
            exports = entry.exports if entry is not None else {}
            self._exports[member] = exports
            for reader in readers.get(member, ()):
                used = results[reader]
                if (
                    used is not None
                    and not _holds(used.links[member], used.reads.get(member), now[1], exports)
                    and runs[reader] < CYCLE_ROUNDS
                ):
                    pending.add(reader)
        for member, entry in results.items():
            if entry is not None and not _final_as_read(entry, current, results):
                state.learnt.pop(member, None)  # stopped by the cap: a lint learns afresh
            if entry is not None and current[member][0] is not None:
                entry.module = current[member][0]  # what the readers hold, same digest
        for member, kept_runs in made.items() if cycle else ():
            before = self._runs.get(member)
            self._runs[member] = kept_runs
            if member in self._unreadable:  # a replay it kept could not be read
                kept_runs = self._runs[member] = []
            if self.cache is not None and kept_runs != before:
                self.cache.store(member, kept_runs, _RUNS)  # type: ignore[attr-defined]
        return [member for member, prepared in texts.items() if prepared is not None]

    def _replay(
        self, member: str, members: dict[str, Module], state: _RunState
    ) -> tuple[Entry | None, StoredEntry | None]:
        """A summary of ``member`` kept from an earlier computation whose file and
        readings all hold now (a verifying trace: the same inputs, read in the same
        order, give the same summary), revived; ``(None, None)`` if there is none."""
        kept = self._runs.get(member)
        if kept is None and self.cache is not None:
            loaded = self.cache.load(member, _RUNS)  # type: ignore[attr-defined]
            kept = loaded if isinstance(loaded, list) else []
            self._runs[member] = kept
        for stored in kept or ():
            try:
                if not isinstance(stored, StoredEntry) or not self._entry_holds(
                    stored, member, state
                ):
                    continue
                return self._revived(member, stored, _Shell(stored.name), members), stored
            except Exception:  # a damaged record: summarised from source
                continue
        return None, None

    def _reusable(
        self, members: tuple[str, ...], state: _RunState, stored: dict[str, StoredEntry]
    ) -> bool:
        """Whether every member has an entry (in memory or on disk) made for this very
        component, from the files as they are, from the digests that hold now. The
        entries read from disk are put in ``stored``: a member computed again to the same
        entry is not written again."""
        if self._damaged.intersection(members):
            return False
        found: dict[str, Entry | StoredEntry] = {}
        for member in members:
            entry: Entry | StoredEntry | None = self._entries.get(member)
            if entry is None and self.cache is not None:
                loaded = self.cache.load(member)  # type: ignore[attr-defined]
                entry = loaded if isinstance(loaded, StoredEntry) else None
                if entry is not None:
                    stored[member] = entry
            if entry is None:
                return False
            found[member] = entry
        try:
            for member, entry in found.items():
                if entry.group != members or not self._entry_holds(entry, member, state, found):
                    return False
        except Exception:  # a damaged entry: recomputed
            return False
        # Final now; a stored summary is unpickled only when asked for (:meth:`_revive`):
        # checking kept findings needs the digests alone.
        for path, entry in found.items():
            self._entries[path] = entry
            self._exports[path] = entry.exports
            if isinstance(entry, StoredEntry):
                self._by_name[entry.name] = entry.digest
                self._stored_names[entry.name] = path
            else:
                self._by_name[entry.module.name] = entry.digest
                self._modules[entry.module.name] = entry.module
        return True

    def _entry_holds(
        self,
        entry: Entry | StoredEntry,
        path: str,
        state: _RunState,
        found: dict[str, Entry | StoredEntry] | None = None,
    ) -> bool:
        """Whether the summary ``entry`` of ``path`` would be computed the same now: the
        file is unchanged, every path probed is still there or still absent, and every
        reading of another module holds (``found``: the entries of ``path``'s component
        being checked with it, compared with one another)."""
        if stamp_of(path) != entry.stamp or not _same_presence(entry.deps):
            return False
        return self._readings_hold(entry.links, entry.reads, path, state, found)

    def _readings_hold(
        self,
        links: Mapping[str, str | None],
        reads: dict[str, dict[str, str] | None],
        importer: str | None,
        state: _RunState,
        found: dict[str, Entry | StoredEntry] | None = None,
    ) -> bool:
        """Whether every module read (``links``, ``reads``) reads the same now, as the
        summary of ``importer`` would see it (``None``: a linted file, which follows all)."""
        for link, digest in links.items():
            names = reads.get(link)
            if found is not None and link in found:
                other = found[link]
                now, exports = other.digest or None, other.exports
            else:
                if importer is None:
                    now = self._current_digest(link, state)
                else:
                    now = self._digest_now(link, importer, state)
                exports = self._exports.get(link, {})
            if not _holds(digest, names, now, exports):
                return False
        return True

    def _revive(self, path: str, state: _RunState) -> Entry | None:
        """Revive the stored entries of the component of ``path`` (final, checked), each
        summary unpickled when first used; if one is damaged, the component is computed
        again instead (then or when it is used: :meth:`_woken`)."""
        stored = self._entries[path]
        found = {m: self._entries[m] for m in stored.group if m in self._entries}
        try:
            entries = self._loaded(found)
        except Exception:
            self._recompute(path, tuple(found), state)
            entry = self._entries.get(path)
            return entry if isinstance(entry, Entry) else None
        for member, entry in entries.items():
            self._entries[member] = entry
            self._modules[entry.module.name] = entry.module
            self._stored_names.pop(entry.module.name, None)
        return entries.get(path)

    def _module_named(self, name: str) -> Module | None:
        """The final summary of module ``name``, unpickled if it was not yet."""
        module = self._modules.get(name)
        if module is None and name in self._stored_names:
            self._revive(self._stored_names[name], self._run())
            module = self._modules.get(name)
        return module

    def _digest_now(self, link: str, importer: str, state: _RunState) -> str | None:
        """The digest ``importer`` would use for ``link`` now (``None``: not followed)."""
        roots = self.roots(importer)
        package = _package_of(importer, roots)
        if not (package is not None and _head(link, roots) == package) and not self.follows(link):
            return None
        return self._current_digest(link, state)

    def _current_digest(self, link: str, state: _RunState) -> str:
        """The digest of the summary of ``link`` as a reader gets it now ("": none)."""
        for working in reversed(self._working):
            if link in working:  # a member of a cycle being computed: as it is now
                return working[link][1]
        if link not in state.final:
            self._settle_from(link, state)
        entry = self._entries.get(link)
        return entry.digest if entry is not None else ""

    def _prepare(self, path: str) -> tuple[str, cst.Module, str, ast.Module | None] | None:
        """(dotted name, libcst tree, text, CPython's tree) of a project file; ``None`` if it
        cannot be read or parsed (its import is then simply not followed)."""
        roots = self.roots(path)
        name = mods.module_name(path, roots)
        text = read_text(path)
        if name is None or text is None:
            return None
        try:
            tree, python_tree = self.parse(path, text)
        except Exception:  # unparsable: the import is simply not followed
            return None
        return name, tree, text, python_tree

    def _summarise(
        self,
        path: str,
        name: str,
        tree: cst.Module,
        text: str,
        python_tree: ast.Module | None = None,
    ) -> Entry | None:
        from .budget import BudgetedInterpreter, BudgetExceeded
        from .exported import export, literal_all

        learnt = self._run().learnt
        learnt.pop(path, None)
        stamp = stamp_of(path)
        if stamp is None:
            return None
        roots = self.roots(path)
        is_package = os.path.basename(path) == "__init__.py"
        # A package's __init__ re-exports its own modules: follow those, however plain.
        importer = Importer(self, roots, {}, name.split(".", 1)[0] if is_package else False)
        interpreter = BudgetedInterpreter(tree, importer, name, is_package)
        root = next((r for r in roots if path.startswith(r + os.sep)), os.path.dirname(path))
        shown = os.path.relpath(path, root).replace(os.sep, "/")
        try:
            exports = interpreter.summarise()
            # Reading ``__all__`` evaluates string literals, which raises on a bad escape
            # such as ``"\N{NOSUCHNAME}"``: part of the same "not followed" rule.
            module = Module(name, {}, literal_all(tree), shown)
            module.exports = export(exports, tree, text, shown, python_tree, self._homes)
        except RecursionError:
            raise  # the engine turns it into XST000 for the file being linted
        except BudgetExceeded as exceeded:
            self.over_budget[path] = exceeded.budget
            return None
        except Exception:  # a bug of ours, or an odd module, must not break the importer
            return None
        external = any(_carries_external(v) for v in module.exports.values())
        self._own(path, module)
        entry = Entry(module, stamp, importer.used, external, importer.links)
        entry.digest, entry.exports = _digests(module, self._by_name, self._foreign(path))
        entry.reads = importer.reads
        if not importer.refused:
            learnt[path] = (text, interpreter)
        return entry


_FINDINGS = "findings:"
_RUNS = "runs:"
#: The digest of a name a summary does not export.
_ABSENT = "-"
#: The digest of a member of a component being computed, not yet summarised: its readers
#: hold its module and record the names they read of it (:meth:`ProjectIndex._pending`).
_PENDING = "pending"


def _stored(entry: Entry, body: bytes) -> StoredEntry:
    module = entry.module
    return StoredEntry(
        module.name,
        entry.stamp,
        dict(entry.deps),
        entry.external,
        dict(entry.links),
        entry.digest,
        entry.group,
        dict(entry.exports),
        _copy_reads(entry.reads),
        body,
    )


def _text_digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def _digests(
    module: Module,
    outside: dict[str, str],
    foreign: Callable[[object], tuple[str, str, str] | None] = lambda record: None,
) -> tuple[str, dict[str, str]]:
    """The interface digest of a summary (what its dependents saw of it) and the digest of
    each name it exports (what a dependent that read only some names saw). Another module
    it holds (``import pkg.x``) counts by name, and by its own digest when that module is
    final already (outside the component being computed), so the digest is linear in the
    summary, not in everything it reaches."""
    names = {
        name: _value_digest(value, module, outside, foreign)
        for name, value in module.exports.items()
    }
    whole = hashlib.sha1(repr((sorted(names.items()), module.all_names)).encode("utf-8"))
    return whole.hexdigest(), names


def _value_digest(
    value: object,
    module: Module,
    outside: dict[str, str],
    foreign: Callable[[object], tuple[str, str, str] | None],
) -> str:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)

    def held(other: Module) -> tuple[object, tuple[str, str]]:
        return _held_module, (other.name, "" if other is module else outside.get(other.name, ""))

    def record(item: object) -> tuple[object, ...]:
        home = foreign(item)
        return (_held_module, home) if home is not None else _facts_of(item)

    # A held module by name (and digest, if final), not by contents; the interpreter's
    # records by what they say (:func:`_facts_of`). A dispatch table is consulted for
    # these types only; a ``persistent_id`` would be called for every object.
    table: dict[type, object] = {Module: held, FunctionInfo: record, Summary: _facts_of}
    table[ClassInfo] = record
    table[_Shell] = held  # the table is looked up by exact type: a module not read yet
    pickler.dispatch_table = table  # type: ignore[assignment]
    try:
        pickler.dump(value)
    except Exception:  # unpicklable: never equal to anything, dependents recompute
        return f"unique:{id(value)}"
    return hashlib.sha1(buffer.getvalue()).hexdigest()


#: Fields that record how the interpreter got to a fact, not the fact: the pass that last
#: joined a function's returns, how many times a summary changed on the way.
_BOOKKEEPING = frozenset({"returns_pass", "version"})


def _facts_of(record: object) -> tuple[type, tuple[()], dict[str, object]]:
    """A function, class or summary as its digest sees it: without bookkeeping, and its
    sets of names in order (a set's order follows the process's string hashing), so that
    the same facts have the same digest in every run and process: a module computed
    again after an edit is then seen unchanged by its readers when it is."""
    state = {}
    for name, item in vars(record).items():
        if name in _BOOKKEEPING:
            continue
        if type(item) in (set, frozenset):
            item = sorted(item, key=repr)
        state[name] = item
    return type(record), (), state


class _Shell(Module):
    """A final module whose stored summary is unpickled when its facts are first read.

    Readers hold it (a stored summary names it) and the index registers it, as any final
    module; its fields are filled by the first read of any of them, and from then on it is
    a plain :class:`.values.Module` (its class is switched back), so later reads cost
    nothing more. Setting its fields replaces them without unpickling."""

    def __init__(self, name: str) -> None:  # no fields yet: the properties fill them
        self.__dict__["name"] = name

    def wake_with(self, fill: Callable[[Module], None]) -> None:
        self.__dict__["_fill"] = fill

    def _wake(self, load: bool = True) -> None:
        fill = self.__dict__.get("_fill")
        if load and fill is not None:
            fill(self)  # its first assignment makes this a plain module (below); if it
            return  # raises first, the next read tries again, and raises again
        self.__dict__.pop("_fill", None)
        self.__class__ = Module  # type: ignore[assignment]


def _lazy_field(field: str) -> property:
    def read(self: _Shell) -> object:
        self._wake()
        return getattr(self, field)

    def write(self: _Shell, value: object) -> None:
        self._wake(load=False)
        setattr(self, field, value)

    return property(read, write)


_Shell.exports = _lazy_field("exports")  # type: ignore[assignment]
_Shell.all_names = _lazy_field("all_names")  # type: ignore[assignment]
_Shell.path = _lazy_field("path")  # type: ignore[assignment]


def _held_module(*reference: str) -> None:
    """Never called: what a held module, or another module's function or class, is in the
    pickled bytes a digest is taken of."""


def _holds(
    digest: str | None, names: dict[str, str] | None, now: str | None, exports: dict[str, str]
) -> bool:
    """Whether a reading of a module still holds: it was not followed, or had no summary,
    and still is so; or it read all of the summary (``names`` is ``None``), whose digest is
    unchanged; or it read some names, whose digests (``exports`` now) are unchanged."""
    if names is None or not digest or not now:
        return now == digest
    return all(exports.get(name, _ABSENT) == seen for name, seen in names.items())


def _fill(held: Module, summary: Module) -> Module:
    """``held``, which readers hold, now with what ``summary`` says of the same module; a
    summary not unpickled yet (a replay's :class:`_Shell`) makes ``held`` one, unpickled
    into when first read: a cycle computed again after an edit replays thousands of
    summaries that no one reads."""
    if type(summary) is _Shell and "_fill" in summary.__dict__:
        held.__class__ = _Shell
        held.wake_with(summary.__dict__["_fill"])  # type: ignore[attr-defined]
        return held
    held.exports, held.all_names, held.path = summary.exports, summary.all_names, summary.path
    return held


def _final_as_read(
    entry: Entry,
    current: dict[str, tuple[Module | None, str]],
    results: dict[str, Entry | None],
) -> bool:
    """Whether every member of its cycle that a summary read reads the same in the
    cycle's final summaries (not so only where :data:`CYCLE_ROUNDS` stopped the worklist)."""
    for link, digest in entry.links.items():
        if link in current:
            found = results.get(link)
            exports = found.exports if found is not None else {}
            if not _holds(digest, entry.reads.get(link), current[link][1], exports):
                return False
    return True


def _copy_reads(reads: dict[str, dict[str, str] | None]) -> dict[str, dict[str, str] | None]:
    return {path: None if names is None else dict(names) for path, names in reads.items()}


def _same_presence(probes: dict[str, Stamp | None]) -> bool:
    """Whether every path looked at to resolve an import is still there, or still absent:
    all a resolution depends on. (What a module found says is its digest's business: an
    edit of an imported module must not invalidate its importers by itself.)"""
    return all((stamp_of(path) is None) == (stamp is None) for path, stamp in probes.items())


def _package_of(path: str, roots: tuple[str, ...]) -> str | None:
    """The top-level package a package's ``__init__`` follows in full; ``None`` otherwise."""
    if os.path.basename(path) != "__init__.py":
        return None
    return _head(path, roots)


def _head(path: str, roots: tuple[str, ...]) -> str | None:
    name = mods.module_name(path, roots)
    return name.split(".", 1)[0] if name else None


def _carries_external(value: Value) -> bool:
    if isinstance(value, ExtStream):
        return value.param is None
    return value is not None and not isinstance(value, (str, int))
