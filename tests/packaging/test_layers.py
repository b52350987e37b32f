"""The packages' layers import downwards only, with no import circle, in small modules.

``extstream_lint`` is four layers, each a folder but the base: the front ends (CLI, flake8
adapter, formats, noqa, configuration, docs) above the analysis, above the project model
(finding, reading and caching files, the import graph, the pre-filter), above the base (the
contract table, the finding type, the bug-report text, the version). ``extstream_guard``
stands beside the linter and may use only its base: the error codes are the contract's.

Imports inside functions count: a lazy import is still a dependency, and a circle through
one is still a circle. ``if TYPE_CHECKING:`` blocks (never run) are left out of the layers,
but not of the circle test: an import type checkers follow in a circle is a circle to a reader.

Inside ``analysis/`` the same rule holds between its five parts (issue 42), lowest first: the
module's text, the abstract values, torch_npu's semantics, the interpreter, the project driver.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import extstream_guard
import extstream_lint

LINT = Path(extstream_lint.__file__).parent
GUARD = Path(extstream_guard.__file__).parent

#: Layer of each part of ``extstream_lint``, lowest first; a module may import its own
#: layer and the ones below it.
LAYERS = {"base": 0, "project": 1, "analysis": 2, "frontends": 3, "main": 4}
#: The modules directly in ``extstream_lint/``: at most six (issue 30).
BASE_MODULES = {"extstream_lint", "extstream_lint.contract", "extstream_lint.findings"}
BASE_MODULES |= {"extstream_lint.bugreport"}
#: The pure-data table both packages share is the one module allowed to be long.
LONG_ALLOWED = {"extstream_lint.contract"}
#: The parts of ``analysis/``, lowest first; a module may import its own part and those below.
#: ``analysis/__init__.py`` is the facade above them all (it imports the engine lazily).
ANALYSIS_PARTS = {"source": 0, "abstract": 1, "semantics": 2, "interp": 3, "driver": 4}
MAX_LINES = 600


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = {**_modules(LINT), **_modules(GUARD)}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST, typing_too: bool) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if not typing_too and isinstance(node, ast.If) and _is_type_checking(node):
            pending.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return found


def imports_of(name: str, typing_too: bool = False) -> set[str]:
    """The modules of both packages that module ``name`` imports (at any depth); with
    ``typing_too``, also those imported only for type checkers."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _import_nodes(ast.parse(path.read_text(encoding="utf-8")), typing_too):
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            targets = [(module, alias.name) for alias in node.names]
        for module, attribute in targets:
            candidate = f"{module}.{attribute}" if attribute else module
            if candidate in MODULES:
                found.add(candidate)
            elif module in MODULES:
                found.add(module)
    return found - {name}


def layer_of(name: str) -> str:
    if not name.startswith("extstream_lint"):
        return "guard"
    if name == "extstream_lint.__main__":
        return "main"
    if name in BASE_MODULES:
        return "base"
    return name.split(".")[1]


def test_every_module_of_the_linter_has_a_layer() -> None:
    for name in MODULES:
        if name.startswith("extstream_lint"):
            assert layer_of(name) in LAYERS, f"{name} is in no layer: move it into one"


def test_at_most_six_modules_directly_in_the_linter_package() -> None:
    direct = sorted(p.name for p in LINT.glob("*.py"))
    assert len(direct) <= 6, direct


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("extstream_lint")))
def test_the_linter_imports_only_downwards(name: str) -> None:
    mine = LAYERS[layer_of(name)]
    upward = sorted(
        other
        for other in imports_of(name)
        if other.startswith("extstream_lint") and LAYERS[layer_of(other)] > mine
    )
    assert not upward, f"{name} ({layer_of(name)}) imports upwards: {upward}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("extstream_guard")))
def test_the_guard_uses_only_the_linters_base(name: str) -> None:
    beyond = sorted(
        other
        for other in imports_of(name)
        if other.startswith("extstream_lint") and layer_of(other) != "base"
    )
    assert not beyond, f"{name} imports the linter's {beyond}: only its base is shared"


def analysis_part(name: str) -> str | None:
    """The part of ``analysis/`` that module ``name`` belongs to (None: not in one)."""
    parts = name.split(".")
    if parts[:2] != ["extstream_lint", "analysis"] or len(parts) < 3:
        return None
    return parts[2]


def test_every_module_of_the_analysis_is_in_a_part() -> None:
    loose = [
        n
        for n in MODULES
        if analysis_part(n) is not None and analysis_part(n) not in ANALYSIS_PARTS
    ]
    assert not loose, f"modules directly in analysis/, in no part: {loose}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if analysis_part(n) in ANALYSIS_PARTS))
def test_the_analysis_parts_import_only_downwards(name: str) -> None:
    mine = ANALYSIS_PARTS[analysis_part(name)]  # type: ignore[index]
    upward = sorted(
        other
        for other in imports_of(name, typing_too=True)
        if analysis_part(other) in ANALYSIS_PARTS and ANALYSIS_PARTS[analysis_part(other)] > mine  # type: ignore[index]
    )
    assert not upward, f"{name} ({analysis_part(name)}) imports upwards: {upward}"


def test_no_import_circle_in_either_package() -> None:
    assert_no_circle({name: sorted(imports_of(name, typing_too=True)) for name in MODULES})


def assert_no_circle(graph: dict[str, list[str]]) -> None:
    state: dict[str, int] = {}
    for root in sorted(graph):
        if root in state:
            continue
        state[root] = 1
        path, frames = [root], [iter(graph[root])]
        while frames:
            following = next(frames[-1], None)
            if following is None:
                state[path.pop()] = 2
                frames.pop()
                continue
            circle = path[path.index(following) :] if state.get(following) == 1 else []
            assert not circle, "import circle: " + " -> ".join([*circle, following])
            if following not in state:
                state[following] = 1
                path.append(following)
                frames.append(iter(graph[following]))


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_over_600_lines(name: str) -> None:
    if name in LONG_ALLOWED:
        return
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{name} has {lines} lines: split it by concern"


def test_the_layering_test_sees_upward_imports_and_circles() -> None:
    """The checks above would fail on what they forbid: the parser sees relative, lazy and
    absolute imports, and the layer map ranks the front ends above the project model."""
    assert "extstream_lint.project.sources" in imports_of("extstream_lint.frontends.cli")
    lazy = imports_of("extstream_lint.frontends.flake8_plugin")
    assert "extstream_lint.analysis.driver.projects" in lazy  # imported inside a function
    assert LAYERS[layer_of("extstream_lint.frontends.cli")] > LAYERS[layer_of(
        "extstream_lint.analysis.driver.engine"
    )] > LAYERS[layer_of("extstream_lint.project.graph")] > LAYERS[layer_of(
        "extstream_lint.contract"
    )]  # fmt: skip
    typed = imports_of("extstream_lint.analysis.driver.reuse", typing_too=True)
    assert "extstream_lint.analysis.driver.protocol" in typed  # only under TYPE_CHECKING
    assert "extstream_lint.analysis.driver.protocol" not in imports_of(
        "extstream_lint.analysis.driver.reuse"
    )
    with pytest.raises(AssertionError, match="import circle"):
        assert_no_circle({"a": ["b"], "b": ["c"], "c": ["a"]})
    assert ANALYSIS_PARTS[analysis_part("extstream_lint.analysis.driver.engine")] > ANALYSIS_PARTS[
        analysis_part("extstream_lint.analysis.abstract.values")
    ]  # fmt: skip


def test_the_architecture_page_stays_a_map() -> None:
    """``docs/architecture.md`` is a map for whoever changes extstream (issue 42: at most 300
    lines); the guard's details live in ``docs/guard.md``, each module's in its docstring."""
    page = LINT.parent / "docs" / "architecture.md"
    lines = page.read_text(encoding="utf-8").count("\n")
    assert lines <= 300, f"docs/architecture.md has {lines} lines: move details out of the map"
    for part in ANALYSIS_PARTS:
        assert f"analysis/{part}/" in page.read_text(encoding="utf-8"), part
