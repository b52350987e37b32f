"""The project index: summaries of the project's modules, computed on demand for imports.

A file is analysed alone (flake8 and editors hand over one file, often from stdin), yet
what it imports matters: an adapter module makes the external stream, helpers consume it.
When the interpreter meets ``from pkg.streams import make_ext``, it asks the index for
``pkg.streams``; the index finds the file (:mod:`.modules`), analyses it (learning passes
only, no findings) and keeps its module-level names as a :class:`.values.Module`, with
every libcst node turned into a :class:`.values.Remote` (file and line) for messages.

Entries are keyed by the file's path, size and mtime and by the same keys of every module
they used, so an edit anywhere below invalidates exactly what depends on it, as mypy does.
The optional on-disk cache (:mod:`.cache`) stores the same entries between processes.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

import libcst as cst

from .. import modules as mods
from ..modules import NEVER_PROJECT as _NEVER_PROJECT
from ..modules import Stamp, stamp_of
from .positions import locate
from .values import ExtStream, Module, Remote, Value


@dataclass
class Entry:
    """One module's summary and what it was computed from."""

    module: Module
    stamp: Stamp
    #: Every path it depended on (modules imported, or looked for and absent: ``None``),
    #: with the stamp it had then.
    deps: dict[str, Stamp | None] = field(default_factory=dict)
    #: It mentions external streams itself, or imports a module that may export them.
    external: bool = False


class Importer:
    """The :class:`.facts.ModuleFacts` of one importing module: the index, seen from it.

    Bound to the importer's roots, its follow policy (``direct``) and the dependencies it
    records (``used``), so the interpreter asks only for a module name.
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
        #: Project modules the importer used, with their stamps (its dependencies).
        self.used: dict[str, Stamp | None] = {} if used is None else used
        #: True: the file being linted, follow all its project imports; a package name: a
        #: package's ``__init__`` (re-exports), follow all imports within that package.
        self.direct = direct

    def module(self, name: str) -> Module | None:
        direct = self.direct is True or name.split(".", 1)[0] == self.direct
        found = self.index.module(name, self.roots, self.used, direct)
        if found is None and mods.namespace_package(name, self.roots):
            return Module(name)  # PEP 420: nothing of its own, its submodules by attribute
        return found


class ProjectIndex:
    """Module summaries of one project, memoised in memory (and on disk, if a cache is set)."""

    def __init__(self, src: tuple[str, ...] = (), cache: object | None = None) -> None:
        self.src = src
        self.cache = cache
        self._entries: dict[str, Entry] = {}
        #: Modules being analysed, innermost last (the import chain right now).
        self._busy: list[str] = []
        #: Modules on that chain whose summary met an import cycle (see :meth:`_entry`).
        self._partial: set[str] = set()
        #: Modules analysed (not taken from a cache) by this index, for tests and benchmarks.
        self.analysed: list[str] = []

    # --- lookups by the interpreter --------------------------------------------------------

    def roots(self, path: str) -> tuple[str, ...]:
        return mods.roots_for(path, self.src)

    def module(
        self,
        name: str,
        roots: tuple[str, ...],
        used: dict[str, Stamp | None],
        direct: bool = True,
    ) -> Module | None:
        """The summary of project module ``name``; records it in ``used`` (dependencies).

        ``direct``: imported by the file being linted, whose helpers matter however plain.
        Deeper imports are followed only when they may hand out external streams or hold a
        helper reaching a refused operation, themselves or through what they import (a text
        test, :func:`.modules.file_may_matter`), so a hit costs the file and
        the modules that can matter to it, not the project's whole import graph.
        """
        head = name.split(".", 1)[0]
        if head in _NEVER_PROJECT:
            return None
        path, probes = mods.locate_module(name, roots)
        used.update(probes)  # a module that appears later, where none was, invalidates
        if path is None:
            return None
        path = os.path.abspath(path)
        if not direct:
            prefilter = mods.external_imports(self.src, self.cache is not None)
            if not prefilter.file_may_export(path, roots):
                reached: dict[str, Stamp] = {}
                if not mods.file_may_matter(path, roots, reached):
                    used.update(prefilter.dependencies(path))  # what that "no" rests on
                    used.update(reached)  # and the "no sink either"
                    return None
        entry = self._entry(path, name, roots)
        if entry is None:
            return None
        used[path] = entry.stamp
        # Its summary holds what it took from its own imports: an edit there, however
        # deep, must invalidate the importer too (a chain app -> helpers -> mid -> adapter).
        used.update(entry.deps)
        return entry.module

    def _entry(self, path: str, name: str, roots: tuple[str, ...]) -> Entry | None:
        entry = self._entries.get(path)
        if entry is not None and self._fresh(entry, path):
            return entry
        if path in self._busy:
            # An import cycle: the inner import sees nothing, so what every module of the
            # cycle learns depends on where the cycle was entered. Such summaries are used
            # for this lookup only: never memoised or cached, or the findings of a file
            # would depend on which files were linted before it (and in which process).
            self._partial.update(self._busy[self._busy.index(path) :])
            return None
        if self.cache is not None:
            cached = self.cache.load(path)  # type: ignore[attr-defined]
            if cached is not None and self._fresh(cached, path):
                self._entries[path] = cached
                return cached
        self._busy.append(path)
        try:
            entry = self._analyse(path, name, roots)
        finally:
            self._busy.pop()
        if path in self._partial:
            self._partial.discard(path)
            return entry
        if entry is not None:
            self._entries[path] = entry
            if self.cache is not None:
                self.cache.store(path, entry)  # type: ignore[attr-defined]
        return entry

    def _fresh(self, entry: Entry, path: str) -> bool:
        if stamp_of(path) != entry.stamp:
            return False
        for dep, stamp in entry.deps.items():
            if stamp_of(dep) != stamp:
                return False
            inner = self._entries.get(dep)
            if inner is not None and inner.stamp != stamp:
                return False
        return True

    def _analyse(self, path: str, name: str, roots: tuple[str, ...]) -> Entry | None:
        stamp = stamp_of(path)
        if stamp is None:
            return None
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            from .engine import decode

            text = decode(data)
            tree = cst.parse_module(text)
        except Exception:  # unreadable or unparsable: the import is simply not followed
            return None
        from .interpreter import Interpreter

        self.analysed.append(path)
        used: dict[str, Stamp | None] = {}
        is_package = os.path.basename(path) == "__init__.py"
        # A package's __init__ re-exports its own modules: follow those, however plain.
        direct = name.split(".", 1)[0] if is_package else False
        interpreter = Interpreter(tree, Importer(self, roots, used, direct), name, is_package)
        root = next((r for r in roots if path.startswith(r + os.sep)), os.path.dirname(path))
        shown = os.path.relpath(path, root).replace(os.sep, "/")
        try:
            exports = interpreter.summarise()
            # Reading ``__all__`` evaluates string literals, which raises on a bad escape
            # such as ``"\N{NOSUCHNAME}"``: part of the same "not followed" rule.
            module = Module(name, {}, _literal_all(tree), shown)
            module.exports = export(exports, tree, text, shown)
        except RecursionError:
            raise  # the engine turns it into XST000 for the file being linted
        except Exception:  # a bug of ours, or an odd module, must not break the importer
            return None
        external = any(_carries_external(v) for v in module.exports.values())
        return Entry(module, stamp, used, external)


def _literal_all(tree: cst.Module) -> tuple[str, ...] | None:
    for line in tree.body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value == "__all__"
                and isinstance(small.value, (cst.List, cst.Tuple))
            ):
                names = []
                for element in small.value.elements:
                    value = element.value
                    if isinstance(value, cst.SimpleString) and isinstance(
                        value.evaluated_value, str
                    ):
                        names.append(value.evaluated_value)
                return tuple(names)
    return None


def _carries_external(value: Value) -> bool:
    if isinstance(value, ExtStream):
        return value.param is None
    return value is not None and not isinstance(value, (str, int))


# --- export: libcst nodes become file:line ------------------------------------------------


def export(values: dict[str, Value], tree: cst.Module, text: str, shown: str) -> dict[str, Value]:
    """A deep copy of ``values`` where every libcst node is a :class:`Remote` place."""
    nodes: dict[int, cst.CSTNode] = {}
    _walk(values, nodes, set())
    positions = locate(tree, nodes.values(), text, None) if nodes else {}
    remotes = {key: Remote(shown, positions[node][0]) for key, node in nodes.items()}
    memo: dict[int, object] = {}
    unknown = Remote(shown, 0)  # a node that is not a call, with or def: the file alone
    return {name: _copy(value, remotes, memo, unknown) for name, value in values.items()}


_SKIP = (str, int, float, bool, bytes, type(None))


def _walk(value: object, nodes: dict[int, cst.CSTNode], seen: set[int]) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _SKIP) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, cst.CSTNode):
            if _locatable(item):
                nodes[id(item)] = item
            continue
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif dataclasses.is_dataclass(item):
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(item))


def _locatable(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.Call, cst.With, cst.FunctionDef, cst.AnnAssign))


def _copy(
    value: object, remotes: dict[int, Remote], memo: dict[int, object], unknown: Remote
) -> object:
    if isinstance(value, _SKIP):
        return value
    key = id(value)
    if key in memo:
        return memo[key]
    if isinstance(value, cst.CSTNode):
        return remotes.get(key, unknown)
    if isinstance(value, dict):
        out: dict[object, object] = {}
        memo[key] = out
        for k, v in value.items():
            out[_copy(k, remotes, memo, unknown)] = _copy(v, remotes, memo, unknown)
        return out
    if isinstance(value, list):
        out_list: list[object] = []
        memo[key] = out_list
        out_list.extend(_copy(v, remotes, memo, unknown) for v in value)
        return out_list
    if isinstance(value, (tuple, frozenset, set)):
        result = type(value)(_copy(v, remotes, memo, unknown) for v in value)
        memo[key] = result
        return result
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        params = type(value).__dataclass_params__  # type: ignore[attr-defined]
        if params.frozen:
            # Frozen values cannot be part of a cycle except through mutable ones.
            changes = {
                f.name: _copy(getattr(value, f.name), remotes, memo, unknown)
                for f in dataclasses.fields(value)
            }
            result = object.__new__(type(value))
            for name, item in changes.items():
                object.__setattr__(result, name, item)
            memo[key] = result
            return result
        clone = object.__new__(type(value))
        memo[key] = clone
        for f in dataclasses.fields(value):
            object.__setattr__(clone, f.name, _copy(getattr(value, f.name), remotes, memo, unknown))
        return clone
    return value
