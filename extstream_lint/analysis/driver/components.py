"""Import components, bottom-up: each summarised once, a cycle iterated to a fixpoint.

A mixin of :class:`.index.ProjectIndex`. The modules a summary follows form a graph
(:mod:`..project.graph`); its strongly connected components are made final in dependency
order. A component whose kept entries all hold is reused (:mod:`.reuse`); otherwise its
members are summarised together, a cycle by a worklist in mypy's order (top-level imports
first), each member again only when a summary it read has changed, at most
:data:`CYCLE_ROUNDS` times.
"""

from __future__ import annotations

import ast
import os
from collections import Counter
from typing import TYPE_CHECKING

from ...project import modules as mods
from ...project.graph import components
from ...project.limits import over_limit
from ...project.modules import kept_stamp, stamp_of
from ...project.sources import read_project_file, read_text
from ..abstract.atoms import ExtStream
from ..abstract.values import Module, Value
from . import linted
from .digests import (
    ABSENT,
    PENDING,
    RUNS_KEY,
    digests,
    final_as_read,
    group_key,
    reading_holds,
    stored_entry,
)
from .entries import Entry, StoredEntry
from .importer import Importer, RunState, head_package, package_of
from .shells import fill_held

if TYPE_CHECKING:
    import libcst as cst

    from .protocol import Index

    _Base = Index
else:
    _Base = object

__all__ = ["CYCLE_ROUNDS", "Components"]

#: Summaries of one member of an import cycle, at most, while computing the cycle.
CYCLE_ROUNDS = 4


class Components(_Base):
    """The index's scheduling of components (a mixin: its state is the index's)."""

    def _settle_from(self, path: str, state: RunState) -> None:
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
        ``top_only``, those its top-level imports run), and the packages above it or
        above a module it imports that may remap ``torch.cuda`` (their summaries say
        whether they do: :meth:`.interp.imports.Imports.package_effects`)."""
        graph = self.graph()
        facts = graph.facts(path)
        if facts is None:
            return []
        roots = self.roots(path)
        package = package_of(path, roots)
        out = []
        for link in facts.links[: facts.strong] if top_only else facts.links:
            if (package is not None and head_package(link, roots) == package) or self.follows(link):
                out.append(link)
        if graph.may_transfer(path):  # rare: a project that imports transfer_to_npu
            out.extend(p for p in graph.remapping_packages(path) if p not in out)
        return out

    def _settle(self, members: tuple[str, ...], state: RunState) -> None:
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
                        entry.reads[link] = {n: found.exports.get(n, ABSENT) for n in names}
            self._entries[member] = entry
            self._exports[member] = entry.exports
            self._by_name[entry.module.name] = entry.digest
            self._modules[entry.module.name] = entry.module
        unreadable = self._unreadable.intersection(members)  # bodies of damaged replays
        self._unreadable.difference_update(unreadable)
        if self.cache is not None:
            key = group_key(members)
            self._groups[key] = members
            for member in members:
                if member in unreadable:
                    self.cache.store(member, None)  # type: ignore[attr-defined]
                elif member in self._entries and member in bodies:
                    stored = stored_entry(self._entries[member], bodies[member], key)
                    if previous.get(member) != stored:  # an edit rewrites what it changed
                        self.cache.store(member, stored)  # type: ignore[attr-defined]

    def _pending(self, path: str) -> tuple[Module | None, str]:
        """A member of a component before its first summary: the module its readers hold
        for the whole computation, empty until then and filled in place by each summary
        that changes (:func:`fill_held`), so that a reader that only holds it (``import m``,
        ``from pkg import m``) never waits for it; what a reader reads of it is recorded
        by name, and a reader whose names change is summarised again."""
        self._exports[path] = {}
        name = mods.module_name(path, self.roots(path))
        return (Module(name), PENDING) if name is not None else (None, "")

    def _recompute(self, path: str, group: tuple[str, ...], state: RunState) -> None:
        """Compute the component of ``path`` from source: a stored summary of it could
        not be read. Its members' kept replays go too (they may be what was damaged)."""
        for member in group:
            entry = self._entries.pop(member, None)
            state.final.discard(member)
            if isinstance(entry, StoredEntry):
                self._stored_names.pop(entry.name, None)
            self._runs[member] = []
            if self.cache is not None:
                self.cache.store(member, [], RUNS_KEY)  # type: ignore[attr-defined]
        self._damaged.update(group)
        self._settle_from(path, state)

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
        state: RunState,
    ) -> list[str]:
        """Summarise the members of one component to a fixpoint, by a worklist; returns
        the members summarised from source.

        Each member is summarised once, in ``order``, seeing the summaries of the members
        done before it (nothing yet of the others). A member is summarised again only
        when a summary it used has changed since (its digest), at most
        :data:`CYCLE_ROUNDS` times in all: a cycle costs what feeds back in it, not a
        round of every member per step of propagation. Every member gets its first
        summary before any gets a second: a member run again as soon as a later one's
        first summary filled a name it read would run again at the next one's (on the
        standard library's cycle, ``os`` read ``posixpath``, ``subprocess``... one after
        the other: five summaries of four passes each; three this way, and a sixth fewer
        statements for the whole overlay run).

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
            member = min(pending, key=lambda m: (runs[m] > 0, position[m]))
            pending.discard(member)
            runs[member] += 1
            if cycle:  # a lint saw this cycle's final summaries, not this round's
                state.linted.pop(member, None)
            entry, kept = self._replay(member, members, state) if cycle else (None, None)
            if entry is not None:
                state.learnt.pop(member, None)  # replayed: no interpreter ran
            else:
                if member not in texts:
                    texts[member] = self._prepare(member)
                prepared = texts[member]
                entry = self._summarise(member, *prepared) if prepared is not None else None
                # The pickled body serves the cache and a later run's replays only: with
                # neither, pickling every summary cost a twentieth of a cold --no-cache run.
                wanted = entry is not None and (
                    self.cache is not None or (cycle and self.keeps_runs)
                )
                body = self._body(entry.module, members) if wanted else None  # type: ignore[union-attr]
                kept = stored_entry(entry, body) if entry is not None and body is not None else None
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
                entry.module = fill_held(held[member], now[0])  # type: ignore[union-attr]
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
                    and not reading_holds(
                        used.links[member], used.reads.get(member), now[1], exports
                    )
                    and runs[reader] < CYCLE_ROUNDS
                ):
                    pending.add(reader)
        for member, entry in results.items():
            if entry is not None and not final_as_read(entry, current, results):
                state.learnt.pop(member, None)  # stopped by the cap: a lint learns afresh
            if entry is not None and current[member][0] is not None:
                entry.module = current[member][0]  # what the readers hold, same digest
        for member, kept_runs in made.items() if cycle else ():
            before = self._runs.get(member)
            self._runs[member] = kept_runs
            if member in self._unreadable:  # a replay it kept could not be read
                kept_runs = self._runs[member] = []
            if self.cache is not None and kept_runs != before:
                self.cache.store(member, kept_runs, RUNS_KEY)  # type: ignore[attr-defined]
        return [member for member, prepared in texts.items() if prepared is not None]

    def _prepare(self, path: str) -> tuple[str, cst.Module, str, ast.Module | None] | None:
        """(dotted name, libcst tree, text, CPython's tree) of a project file; ``None`` if it
        cannot be read or parsed (its import is then simply not followed)."""
        roots = self.roots(path)
        name = mods.module_name(path, roots)
        text = read_text(path)
        if name is None or text is None or over_limit(text) is not None:
            return None  # too large: not followed (:mod:`..project.limits`)
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

        learnt = self._run().learnt
        learnt.pop(path, None)
        stamp = stamp_of(path)
        if stamp is None:
            return None
        try:  # the bytes the summary was computed from: read this run already
            stamp = kept_stamp(stamp, read_project_file(path))
        except OSError:
            return None
        done = linted.take(self, path, name, tree, text)
        if done is not None:  # the lint of this file learnt it (:mod:`.linted`)
            self._own(path, done.module)
            external = any(carries_external(v) for v in done.module.exports.values())
            entry = Entry(done.module, stamp, done.used, external, done.links)
            entry.digest, entry.exports, entry.reads = done.digest, done.exports, done.reads
            return entry
        roots = self.roots(path)
        is_package = os.path.basename(path) == "__init__.py"
        # A package's __init__ re-exports its own modules: follow those, however plain.
        importer = Importer(self, roots, {}, name.split(".", 1)[0] if is_package else False)
        interpreter = BudgetedInterpreter(tree, importer, name, is_package)
        try:
            exports = interpreter.summarise()
            module = linted.summary_module(
                self, path, roots, name, tree, text, python_tree, exports
            )
        except RecursionError:
            raise  # the engine turns it into XST000 for the file being linted
        except BudgetExceeded as exceeded:
            self.over_budget[path] = exceeded.budget
            return None
        except Exception:  # a bug of ours, or an odd module, must not break the importer
            return None
        external = any(carries_external(v) for v in module.exports.values())
        self._own(path, module)
        entry = Entry(module, stamp, importer.used, external, importer.links)
        entry.digest, entry.exports = digests(module, self._by_name, self._foreign(path))
        entry.reads = importer.reads
        if not importer.refused:
            learnt[path] = (text, interpreter)
        return entry


def carries_external(value: Value) -> bool:
    if isinstance(value, ExtStream):
        return value.param is None
    return value is not None and not isinstance(value, (str, int))
