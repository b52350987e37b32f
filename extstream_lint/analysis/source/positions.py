"""Line and column of libcst nodes, without libcst's PositionProvider on the common path.

libcst nodes carry no positions, and computing them (``PositionProvider``) costs about twice
as much as parsing. The ``ast`` tree does carry them, and flake8 hands it to us for free, so
we match nodes instead: the k-th call of the file in source order in libcst is the k-th
call in ``ast`` (same for ``with`` statements, function definitions, annotated
assignments and class patterns). The match is verified (counts per kind, callee names); if
anything disagrees, or ``ast`` cannot parse the file, we fall back to ``PositionProvider``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .parsing import python_parse
from .syntax import push_children, tail_name

Position = tuple[int, int]  # (1-based line, 0-based character column)

_KINDS: dict[type, tuple[type, ...]] = {
    cst.Call: (ast.Call,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.AnnAssign: (ast.AnnAssign,),
}
if hasattr(ast, "MatchClass"):  # Python 3.10+: ``case ExternalStream():`` narrows (patterns)
    _KINDS[cst.MatchClass] = (ast.MatchClass,)
_AST_TO_KIND: dict[type, type] = {a: c for c, group in _KINDS.items() for a in group}
#: Attribute reads are located only when asked for (where a method was bound, for messages).
_WITH_ATTRIBUTES: dict[type, tuple[type, ...]] = {**_KINDS, cst.Attribute: (ast.Attribute,)}
_AST_TO_KIND_WITH_ATTRIBUTES = {a: c for c, group in _WITH_ATTRIBUTES.items() for a in group}
_NO_AST_EXPRESSIONS = (cst.Import, cst.ImportFrom)
_NEWLINE = re.compile(r"\r\n|\r|\n")


def locate(
    module: cst.Module,
    wanted: Iterable[cst.CSTNode],
    source: str,
    tree: ast.Module | None,
) -> dict[cst.CSTNode, Position]:
    """Positions of the ``wanted`` nodes (calls, withs, defs, annotated assignments, class
    patterns, attribute reads, and subscripts that run a class's dunder)."""
    wanted = set(wanted)
    if not wanted:
        return {}
    matched = _match_with_ast(module, wanted, source, tree)
    if matched is not None:
        return matched
    return _with_position_provider(module, wanted)


def _match_with_ast(
    module: cst.Module, wanted: set[cst.CSTNode], source: str, tree: ast.Module | None
) -> dict[cst.CSTNode, Position] | None:
    if tree is None:
        try:
            tree = python_parse(source)  # the compiler's warnings are not ours to show
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    kinds, ast_to_kind = _KINDS, _AST_TO_KIND
    if any(type(node) is cst.Attribute for node in wanted):
        kinds, ast_to_kind = _WITH_ATTRIBUTES, _AST_TO_KIND_WITH_ATTRIBUTES
    if any(type(node) is cst.Subscript for node in wanted):  # ``obj[k]`` runs a dunder
        kinds = {**kinds, cst.Subscript: (ast.Subscript,)}
        ast_to_kind = {a: c for c, group in kinds.items() for a in group}
    ranks: dict[cst.CSTNode, int] = {}
    counts: dict[type, int] = dict.fromkeys(kinds, 0)
    stack: list[cst.CSTNode] = [module]
    while stack:  # iterative pre-order: deep nesting must not overflow the stack
        node = stack.pop()
        kind = type(node)
        if kind in counts:
            if node in wanted:
                ranks[node] = counts[kind]
            counts[kind] += 1
        elif kind in _NO_AST_EXPRESSIONS:
            continue  # dotted import names are attributes in libcst only; they hold no code
        kids: list[cst.CSTNode] = []
        push_children(node, kids)
        stack += kids[::-1]  # reversed by a slice: no call per node
    by_kind: dict[type, list[ast.AST]] = {kind: [] for kind in kinds}
    for node in _walk_ast(tree):
        kind = ast_to_kind.get(type(node))
        if kind is not None:
            by_kind[kind].append(node)
    for kind, nodes in by_kind.items():
        if len(nodes) != counts[kind]:
            return None
        nodes.sort(key=_source_order)
    lines = _NEWLINE.split(source)
    result: dict[cst.CSTNode, Position] = {}
    for node, rank in ranks.items():
        twin = by_kind[type(node)][rank]
        if isinstance(node, cst.Call) and not _same_callee(node, twin):
            return None
        line = twin.lineno
        result[node] = (line, _char_column(lines, line, twin.col_offset))
    return result


def _all_subclasses(root: type) -> frozenset[type]:
    found, pending = {root}, [root]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                pending.append(sub)
    return frozenset(found)


_AST_TYPES = _all_subclasses(ast.AST)


def _walk_ast(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` in :func:`ast.walk`'s order (breadth first), without its
    generators per node and per field: for each call, ``ast.walk`` made about ten
    function calls per node of the file, as many as the rest of matching."""
    order = [tree]
    for node in order:  # grows while it is read: breadth first
        fields = node.__dict__
        for name in node._fields:
            if name in fields:
                value = fields[name]
                if type(value) is list:
                    order.extend([item for item in value if type(item) in _AST_TYPES])
                elif type(value) in _AST_TYPES:
                    order.append(value)
    return order


def _source_order(node: ast.AST) -> tuple[int, int, int, int]:
    # Outer nodes first where two start at the same place: a.b().c() contains a.b().
    return (
        node.lineno,  # type: ignore[attr-defined]
        node.col_offset,  # type: ignore[attr-defined]
        -(node.end_lineno or 0),  # type: ignore[attr-defined]
        -(node.end_col_offset or 0),  # type: ignore[attr-defined]
    )


def _same_callee(node: cst.Call, twin: ast.AST) -> bool:
    mine = tail_name(node.func)
    func = twin.func  # type: ignore[attr-defined]
    theirs = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return mine is None or theirs is None or mine == theirs


def _char_column(lines: list[str], line: int, byte_col: int) -> int:
    """``ast`` columns count UTF-8 bytes; flake8 and editors count characters."""
    if not 0 < line <= len(lines):
        return byte_col
    text = lines[line - 1]
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _with_position_provider(
    module: cst.Module, wanted: set[cst.CSTNode]
) -> dict[cst.CSTNode, Position]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    result: dict[cst.CSTNode, Position] = {}
    for node in wanted:
        anchor = node.name if isinstance(node, cst.FunctionDef) else node
        start = positions[anchor].start
        result[node] = (start.line, start.column)
    return result
