"""The summary a lint learnt: kept for an importer linted later, so a file learns once.

The CLI (-j1) and flake8 lint files in the order they are given. A file linted before any
importer asks for its summary ran its learning passes for the lint; the summary asked
for later would run them again. When the lint followed only imports a summary of the same
file follows (:meth:`.index.ProjectIndex.follows`; a lint follows all), its learning
passes are the summary's, so the lint builds the summary's entry right after them, before
its reporting pass (which may change objects the exports reach: their digests, pickled,
would then differ from a fresh summary's), and the summary takes it (:func:`take`).

The digests read two things of the index that may change between the lint and the
summary: the digests of the final modules the exports hold, and those of other modules'
functions and classes they carry. Both are recorded as read, and the entry is taken only
if they still hold; otherwise the summary is computed afresh, as without this.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..abstract.values import Module, Value
from .digests import copy_reads, digests
from .entries import Linted
from .importer import REMAPS, Importer

if TYPE_CHECKING:
    import ast

    import libcst as cst

    from ..interp.interpreter import Interpreter
    from .protocol import Index


class _Recorded(dict):  # type: ignore[type-arg]
    """The index's digests by module name, recording each one read."""

    def __init__(self, outside: dict[str, str]) -> None:
        super().__init__()
        self.outside = outside
        self.seen: dict[str, str] = {}

    def get(self, key: str, default: str = "") -> str:  # type: ignore[override]
        found = self.outside.get(key, default)
        self.seen[key] = found
        return found


def wanted(index: Index, path: str) -> bool:
    """Whether a summary of ``path`` may be asked for later in this run."""
    return path not in index._run().final and index.follows(path)


def keep(
    index: Index,
    path: str,
    interpreter: Interpreter,
    exports: dict[str, Value],
    text: str,
) -> None:
    """After the lint's learning passes: the summary's entry, if the summary of ``path``
    would have learnt what the lint did (outside a cycle, the same imports followed)."""
    state = index._run()
    facts = interpreter.facts
    if path in state.final or not isinstance(facts, Importer):
        return  # final already: in a cycle the lint reached, or summarised meanwhile
    name = interpreter.module_name
    is_package = os.path.basename(path) == "__init__.py"
    direct = name.split(".", 1)[0] if is_package else False
    whole = {link for module, link in facts._paths.items() if module.split(".")[0] == direct}
    for link in facts.links:
        if not (link.startswith(REMAPS) or link in whole or index.follows(link)):
            return  # a summary would not follow it: it would learn less
    parsed = state.trees.get(path)
    if parsed is None or parsed[0] != text or parsed[1] is not interpreter.module:
        return
    tree, python_tree = parsed[1], parsed[2]
    outside = _Recorded(index._by_name)
    homes: dict[object, object] = {}
    foreign = index._foreign(path)

    def recorded(item: object) -> tuple[str, str, str] | None:
        home = foreign(item)
        homes[item] = home
        return home

    try:
        roots = index.roots(path)
        module = summary_module(index, path, roots, name, tree, text, python_tree, exports)
        used, links, reads = dict(facts.used), dict(facts.links), copy_reads(facts.reads)
        kept = Linted(text, tree, module, used, links, reads, outside.seen, homes)
        kept.digest, kept.exports = digests(module, outside, recorded)  # type: ignore[arg-type]
    except Exception:  # as the summary would: computed afresh then, and failing there
        return
    state.linted[path] = kept


def summary_module(
    index: Index,
    path: str,
    roots: tuple[str, ...],
    name: str,
    tree: cst.Module,
    text: str,
    python_tree: ast.Module | None,
    exports: dict[str, Value],
) -> Module:
    """The module a summary of ``path`` hands its importers: its exports, named by its
    path under its root (a fresh summary, :meth:`.components.Components._summarise`, and
    one a lint built, :func:`keep`). Reading ``__all__`` evaluates string literals, which
    raises on a bad escape such as ``"\\N{NOSUCHNAME}"``: the callers' "not followed"."""
    from ..abstract.exported import export, literal_all

    root = next((r for r in roots if path.startswith(r + os.sep)), os.path.dirname(path))
    shown = os.path.relpath(path, root).replace(os.sep, "/")
    module = Module(name, {}, literal_all(tree), shown)
    module.exports = export(exports, tree, text, shown, python_tree, index._homes)
    return module


def take(index: Index, path: str, name: str, tree: cst.Module, text: str) -> Linted | None:
    """The entry the lint of ``path`` built, if it ran on ``tree`` as ``name`` and what its
    digests read of the index still holds."""
    kept = index._run().linted.pop(path, None)
    if kept is None or kept.text != text or kept.tree is not tree or kept.module.name != name:
        return None
    outside = index._by_name
    if any(outside.get(key, "") != digest for key, digest in kept.names.items()):
        return None
    foreign: Callable[[object], object] = index._foreign(path)
    if any(foreign(item) != home for item, home in kept.homes.items()):
        return None
    return kept
