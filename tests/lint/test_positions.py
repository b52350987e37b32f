"""The fast position path (matching nodes to ``ast`` by source-order rank) must agree with
libcst's own PositionProvider, which is slow but authoritative."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from extstream_lint.analysis.source.positions import _match_with_ast
from extstream_lint.analysis.source.syntax import children
from tests._skips import NO_TORCH

HERE = Path(__file__).resolve().parent
CASES = sorted((HERE.parent / "lint_cases").glob("*.py"))


def _ast_parses(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes())
    except SyntaxError:
        return False
    return True


# Files the running Python cannot parse (PEP 695 on 3.11) always take the PositionProvider
# fallback; test_cases.py checks their findings' lines.
FAST_PATH_CASES = [p for p in CASES if _ast_parses(p)]


def _torch_sources(limit: int) -> list[Path]:
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    root = Path(os.path.dirname(torch.__file__))
    return sorted(root.rglob("*.py"))[::97][:limit]


def _all_nodes(module: cst.Module) -> list[cst.CSTNode]:
    found, stack = [], [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Call, cst.With, cst.FunctionDef, cst.AnnAssign)):
            found.append(node)
        stack.extend(children(node))
    return found


def _expected(module: cst.Module, nodes: list[cst.CSTNode]) -> dict[cst.CSTNode, tuple[int, int]]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    result = {}
    for node in nodes:
        anchor = node.name if isinstance(node, cst.FunctionDef) else node
        start = positions[anchor].start
        result[node] = (start.line, start.column)
    return result


@pytest.mark.parametrize(
    "path", FAST_PATH_CASES + _torch_sources(40), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_fast_positions_match_position_provider(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    nodes = _all_nodes(module)
    tree = ast.parse(source)
    fast = _match_with_ast(module, set(nodes), source, tree)
    assert fast is not None, "ranks did not line up with the ast tree"
    expected = _expected(module, nodes)
    # PositionProvider starts a parenthesized call at its "(": compare lines, and columns
    # wherever the call is not wrapped in parentheses. Definitions are only ever cited by
    # line ("annotated line 12"), so only their line is compared.
    mismatched = [
        (type(n).__name__, fast[n], expected[n])
        for n in nodes
        if fast[n][0] != expected[n][0]
        or (
            not getattr(n, "lpar", None)
            and not isinstance(n, cst.FunctionDef)
            and fast[n][1] != expected[n][1]
        )
    ]
    assert not mismatched, mismatched[:10]


def test_non_ascii_columns_are_characters() -> None:
    source = 'x = "ü" + f(y)\n'
    module = cst.parse_module(source)
    call = next(n for n in _all_nodes(module) if isinstance(n, cst.Call))
    fast = _match_with_ast(module, {call}, source, ast.parse(source))
    assert fast == {call: (1, 10)}


def _attributes(module: cst.Module) -> list[cst.CSTNode]:
    """Attribute reads outside import statements (whose dotted names ``ast`` has no node for)."""
    found, stack = [], [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(node, cst.Attribute):
            found.append(node)
        stack.extend(children(node))
    return found


@pytest.mark.parametrize(
    "path", FAST_PATH_CASES + _torch_sources(5), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_attribute_positions_match_position_provider(path: Path) -> None:
    """Where a method was bound (``poll = ext.query``) is an attribute read; dotted import
    names are attributes in libcst only, and must not shift the ranks of the others."""
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    wanted = _attributes(module)
    fast = _match_with_ast(module, set(wanted), source, ast.parse(source))
    assert fast is not None, "ranks did not line up with the ast tree"
    expected = _expected(module, wanted)
    mismatched = [(fast[n], expected[n]) for n in wanted if fast[n][0] != expected[n][0]]
    assert not mismatched, mismatched[:10]
