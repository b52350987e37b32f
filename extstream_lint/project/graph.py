"""The import graph of one run and its strongly connected components (Tarjan, once).

Nodes are project files, edges their imports (:class:`.sources.FileFacts`). The graph is
built lazily from the files a question starts at, so linting one file looks only at what
it imports, transitively, never the whole tree. Components are found once per run by an
iterative Tarjan (import chains are deeper than Python's recursion allows); Tarjan emits a
component after every component it imports, so each component's verdicts are decided as
a unit, from its members and from components already final:

- ``export``: a member mentions external streams, or imports a component that does. The
  pre-filter's question: may this file be handed an external stream?
- ``matter``: a member may reach a refused operation itself (or ``export``), or imports a
  component that may. The index's question: may a helper here matter to a file that has
  an external stream?

A "no" inside an import cycle is therefore final exactly when its component's is, and no
file is searched twice. An ``export`` "yes" is then narrowed by name (:mod:`.names`): per
file, the names through which it may hand out a stream (:meth:`ImportGraph.carried`),
computed per component bottom-up from those of the components it imports (a module bound
whole, ``import m`` or ``*``, lends the importer's namespace all of its names); a file is
handed a stream only if it spells one of those names of a module it imports
(:meth:`ImportGraph.receives`). Everything here is linear in the files and imports
reached.

One question follows more than imports: ``transfer``, may running a file remap
``torch.cuda`` for the process (``import torch_npu.contrib.transfer_to_npu``, contract
section 3)? Python runs every package ``__init__`` above a module before the module
(language reference 5.2), and an import's effects are process-wide, so a file is affected
by what its imports run and by the packages above it and above each module it imports.
Those package edges are kept out of the components above: a package ``__init__`` usually
imports its own modules, and linking each module to its package would fuse every package
into one cycle. They have their own components, one Tarjan per run
(:meth:`ImportGraph.may_transfer`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from .census import others_mention
from .modules import installed, run_memo
from .sources import FileFacts, SourceFacts, facts_of_text, read_text, source_facts

if TYPE_CHECKING:  # names and CPython's parser are imported when a module hands out streams
    from .names import Statement

_NONE: frozenset[str] = frozenset()


def components(
    start: str, successors: Callable[[str], Iterable[str]], done: Callable[[str], bool]
) -> Iterator[tuple[str, ...]]:
    """Tarjan's strongly connected components of what ``start`` reaches, iteratively (import
    chains are deeper than Python's recursion allows). Nodes for which ``done`` is true are
    not entered (components decided earlier). Each component comes out, members sorted,
    after every component it reaches: dependency order, bottom-up."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    frames: list[tuple[str, Iterator[str]]] = []

    def enter(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        frames.append((node, iter(successors(node))))

    enter(start)
    while frames:
        node, pending = frames[-1]
        following = next(pending, None)
        if following is not None:
            if following in index:
                if following in on_stack:
                    low[node] = min(low[node], index[following])
            elif not done(following):
                enter(following)
            continue
        frames.pop()
        if frames:
            parent = frames[-1][0]
            low[parent] = min(low[parent], low[node])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            yield tuple(sorted(members))


class ImportGraph:
    """The components met so far in one run, with their verdicts."""

    def __init__(self, sources: SourceFacts) -> None:
        self.sources = sources
        #: File -> its component's number; components in the order Tarjan emitted them
        #: (every component after all those it imports).
        self.component: dict[str, int] = {}
        self.members: list[tuple[str, ...]] = []
        self.export: list[bool] = []
        self.matter: list[bool] = []
        #: File -> the names through which it may hand out an external stream.
        self._carried: dict[str, frozenset[str]] = {}
        self._statements: dict[str, tuple[list[Statement], frozenset[str]] | None] = {}
        #: File -> may running it remap ``torch.cuda`` (:meth:`may_transfer`).
        self._transfer: dict[str, bool] = {}

    # --- questions ------------------------------------------------------------------------

    def may_export(self, path: str) -> bool:
        """May the project file ``path`` (absolute) hand out an external stream?"""
        return self.export[self._component_of(path)]

    def may_matter(self, path: str) -> bool:
        """May the file, or what it imports, hold a helper reaching a refused operation?"""
        return self.matter[self._component_of(path)]

    def may_transfer(self, path: str) -> bool:
        """May running the project file ``path`` (absolute) remap ``torch.cuda``: does it,
        a package above it, or what either runs, import ``transfer_to_npu``, transitively?
        A text question (a comment naming it counts): the summaries decide; this says
        where they must look."""
        found = self._transfer.get(path)
        if found is None:
            self._close_transfer(path)
            found = self._transfer[path]
        return found

    def remapping_packages(self, path: str) -> list[str]:
        """The packages above the project file ``path`` or above a module it imports that
        may remap ``torch.cuda`` (their ``__init__.py``, ``path`` itself left out)."""
        facts = self.facts(path)
        above = [*packages_above(path)]
        for link in facts.links if facts is not None else ():
            above.extend(packages_above(link))
        return [p for p in dict.fromkeys(above) if p != path and self.may_transfer(p)]

    def remapped(self, path: str, links: tuple[str, ...]) -> bool:
        """May a package above ``path``, or a module among ``links`` (or a package above
        one), remap ``torch.cuda`` before ``path``'s code runs?"""
        return any(self.may_transfer(p) for p in packages_above(path)) or any(
            self.may_transfer(link) for link in links
        )

    def _runs(self, path: str) -> tuple[str, ...]:
        """What running ``path`` runs first: the packages above it, then its imports."""
        facts = self.facts(path)
        return (*packages_above(path), *(facts.links if facts is not None else ()))

    def _close_transfer(self, start: str) -> None:
        transfer = self._transfer
        for members in components(start, self._runs, transfer.__contains__):
            inside = set(members)
            verdict = False
            for member in members:
                facts = self.facts(member)
                if (facts is not None and facts.transfer) or any(
                    transfer.get(other, False)
                    for other in self._runs(member)
                    if other not in inside
                ):
                    verdict = True
                    break
            for member in members:
                transfer[member] = verdict

    def imports_external(self, text: str, path: str) -> bool:
        """For the text ``text`` read as ``path`` (maybe not what is on disk: an editor's
        buffer): does it spell a name through which a project file it imports may hand
        out an external stream?"""
        facts = facts_of_text(text, path, self.sources.roots(path), None)
        from .names import spelled

        def spells(wanted: frozenset[str]) -> frozenset[str]:
            return spelled(text, wanted)

        return self._spells_handed(path, facts.links, spells)

    def receives(self, path: str) -> bool:
        """May the project file ``path`` (absolute), as on disk, hold an external stream:
        does it mention one, or spell a name through which a module it imports may hand
        one out?"""
        facts = self.facts(path)
        if facts is None:
            return False
        if facts.external:
            return True

        def spells(wanted: frozenset[str]) -> frozenset[str]:
            return self.sources.spelled(path, wanted)

        return self._spells_handed(path, facts.links, spells)

    def carried(self, path: str) -> frozenset[str]:
        """The names of the file ``path`` through which it may hand out an external stream;
        empty when it cannot."""
        known = self._carried.get(path)
        if known is not None:
            return known
        for number in self._uncarried_below(self._component_of(path)):
            self._carry(number)
        return self._carried.get(path, _NONE)

    def facts(self, path: str) -> FileFacts | None:
        return self.sources.facts(path)

    def _component_of(self, path: str) -> int:
        found = self.component.get(path)
        if found is None:
            self._tarjan(path)
            found = self.component[path]
        return found

    def _spells_handed(
        self,
        path: str,
        links: tuple[str, ...],
        spelled: Callable[[frozenset[str]], frozenset[str]],
    ) -> bool:
        """It spells a name a module it imports may hand out, or ``ExternalStream`` /
        ``stream_ptr`` while importing a module that may hand out external streams or remap
        ``torch.cuda`` (``import torch_npu.contrib.transfer_to_npu``), or below a package
        that may remap it, or importing a module below one: then
        ``torch.cuda.ExternalStream`` may be torch_npu's. One question per file, so the
        answer kept for its words serves every run."""
        wanted = _NONE.union(*(self.carried(link) for link in links))
        if any(self.may_export(link) for link in links) or self.remapped(path, links):
            wanted = wanted | _CLASS_WORDS
        return bool(wanted) and bool(spelled(wanted))

    def _uncarried_below(self, start: int) -> list[int]:
        """The components ``start`` reaches (itself included) whose names are not known yet,
        bottom-up (Tarjan numbered every component after those it imports)."""
        carried = self._carried
        seen = {start}
        stack = [start]
        while stack:
            number = stack.pop()
            for member in self.members[number]:
                facts = self.facts(member)
                for link in facts.links if facts is not None else ():
                    other = self._component_of(link)
                    if other not in seen and link not in carried:
                        seen.add(other)
                        stack.append(other)
        return sorted(number for number in seen if self.members[number][0] not in carried)

    def _carry(self, number: int) -> None:
        """The names of one component's members: to a fixpoint over its members (a cycle's
        names grow together), from those of the components it imports. A worklist: a
        member is looked at again only when a member it imports gained names."""
        members = self.members[number]
        carried = self._carried
        if not self.export[number]:
            for member in members:
                carried[member] = _NONE
            return
        current = dict.fromkeys(members, _NONE)
        readers: dict[str, list[str]] = {}
        for member in members:
            facts = self.facts(member)
            for link in facts.links if facts is not None else ():
                if link in current:
                    readers.setdefault(link, []).append(member)
        pending = list(reversed(members))
        queued = set(members)
        while pending:
            member = pending.pop()
            queued.discard(member)
            names = self._names_of(member, current)
            if names != current[member]:
                current[member] = names
                for reader in readers.get(member, ()):
                    if reader not in queued:
                        queued.add(reader)
                        pending.append(reader)
        carried.update(current)

    def _names_of(self, path: str, current: dict[str, frozenset[str]]) -> frozenset[str]:
        facts = self.facts(path)
        if facts is None:
            return _NONE
        carried = self._carried

        def of(link: str) -> frozenset[str]:
            found = current.get(link)
            return found if found is not None else carried.get(link, _NONE)

        imported = _NONE.union(*(of(link) for link in facts.links))
        names: frozenset[str] = _NONE
        if facts.external or (imported and self.sources.spelled(path, imported)):
            names = self._names_in(path, imported)
        for link in facts.whole:  # its namespace reaches theirs: ``m.name``, ``*``
            names = names | of(link)
        return names

    def _names_in(self, path: str, imported: frozenset[str]) -> frozenset[str]:
        return self.sources.carried(path, imported, lambda: self._parsed_names(path, imported))

    def _parsed_names(self, path: str, imported: frozenset[str]) -> frozenset[str]:
        from .names import carried, statements
        from .pytrees import tree_of

        if path not in self._statements:
            text = read_text(path)
            tree = tree_of(path, text) if text is not None else None
            self._statements[path] = statements(tree, text) if tree is not None else None
        found = self._statements[path]
        if found is None:  # CPython rejects it: every word may be a name that matters
            from .names import words

            text = read_text(path)
            return words(text) if text is not None else _NONE
        return carried(found[0], found[1], imported)

    def _tarjan(self, start: str) -> None:
        """Assign components to ``start`` and every file it reaches that has none yet."""

        def links(path: str) -> tuple[str, ...]:
            facts = self.sources.facts(path)
            return facts.links if facts is not None else ()

        for members in components(start, links, self.component.__contains__):
            self._close(members)

    def _close(self, members: tuple[str, ...]) -> None:
        """Decide one component: its members' own facts, and its imports' components
        (all final: Tarjan emits a component after everything it reaches)."""
        number = len(self.members)
        export = matter = False
        outside: set[int] = set()
        for member in members:
            self.component[member] = number
            facts = self.sources.facts(member)
            if facts is None:
                continue
            export = export or facts.external
            matter = matter or facts.refers
            for link in facts.links:
                other = self.component.get(link)
                if other is not None and other != number:
                    outside.add(other)
        for other in outside:
            export = export or self.export[other]
            matter = matter or self.matter[other]
        self.members.append(members)
        self.export.append(export)
        self.matter.append(matter or export)


def packages_above(path: str) -> tuple[str, ...]:
    """The ``__init__.py`` of every package above the file ``path`` (absolute), innermost
    first: what Python runs before it (a namespace package, without one, ends the chain).
    A ``stat`` per level, kept for the run per directory."""
    directory = os.path.dirname(path)
    if os.path.basename(path) == "__init__.py":
        directory = os.path.dirname(directory)
    known = run_memo("packages-above", dict)
    if known is not None and directory in known:
        return known[directory]  # type: ignore[no-any-return]
    found: list[str] = []
    current = directory
    while True:
        init = os.path.join(current, "__init__.py")
        if not os.path.isfile(init):
            break
        found.append(init)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    result = tuple(found)
    if known is not None:
        known[directory] = result
    return result


#: The words that make an external stream (:func:`.markers.might_use_external_streams`).
_CLASS_WORDS = frozenset({"ExternalStream", "stream_ptr"})


def graph_for(src: tuple[str, ...] = (), persist: bool = False) -> ImportGraph:
    """The import graph of the current run for these settings; outside a run, a graph for
    one question (nothing may be remembered, files may change between questions)."""
    sources = source_facts(src, persist)
    graph = run_memo(f"graph:{src!r}:{persist}", lambda: ImportGraph(sources))
    return graph if graph is not None else ImportGraph(sources)


def imports_external(
    text: str, filename: str, src: tuple[str, ...] = (), persist: bool = False
) -> bool:
    """The pre-filter's widened question for a file handed in as ``text``: does it import a
    project module that may hand it an external stream (a module mentioning one, or
    importing such a module, transitively)?"""
    if not filename or filename.startswith("<") or filename in ("-", "stdin"):
        return False
    path = os.path.abspath(filename)
    if installed(os.path.dirname(path)):
        # Installed code imports installed code, never analysed: the markers decide.
        return False
    sources = source_facts(src, persist)
    if not others_mention(sources.roots(path), path, sources):
        return False  # no file it may import mentions one: no need for the graph
    return graph_for(src, persist).imports_external(text, path)
