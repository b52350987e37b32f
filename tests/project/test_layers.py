"""The project model's layers import downwards only: no import circle among its modules.

Files and imports (markers, modules, sources) -> import graph and components (graph) ->
per-module facts (analysis.index, entries, cache) -> per-file findings (analysis.engine)
-> adapters (prefilter, flake8_plugin, cli). Imports inside functions count too: a lazy
import is still a dependency. The interpreter's own modules (effects, summaries, values,
interpreter) are another engineer's concern and left out here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import extstream_lint

PACKAGE = Path(extstream_lint.__file__).parent
OWNED = {
    "markers", "modules", "sources", "pytrees", "names", "graph", "prefilter", "diskio",
    "safe_pickle", "analysis.parsing",
    "analysis.index", "analysis.entries", "analysis.cache", "analysis.engine",
    "analysis.budget", "analysis.facts", "flake8_plugin", "cli",
}  # fmt: skip


def _imports(name: str) -> set[str]:
    path = PACKAGE / (name.replace(".", "/") + ".py")
    package = name.rsplit(".", 1)[0] if "." in name else ""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".") if package else []
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            target = ".".join([*base, node.module] if node.module else base)
            for alias in node.names:
                for candidate in (f"{target}.{alias.name}".strip("."), target):
                    if candidate in OWNED:
                        found.add(candidate)
                        break
    return found - {name}


def test_no_import_circle_among_the_project_models_modules() -> None:
    graph = {name: _imports(name) for name in OWNED}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            assert state.get(nxt) != 1, " -> ".join([*path[path.index(nxt) :], nxt])
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
