"""CPython's trees of project files: parsed quietly, and at most once per run per text.

The import graph asks CPython's tree of a module for its top-level statements
(:mod:`.names`), and the analysis asks it again before every libcst parse (its guard and
the positions of findings, :mod:`.analysis.source.parsing`): both get the one tree kept here for
the length of a run. No libcst here.

CPython's tree also says whether libcst's native parser can be given the file at all
(:func:`too_deep_for_libcst`): that parser overflows its stack, killing the process, on
chains CPython keeps flat (``a and b and ...``, ``import a.b.c...``) and on nesting newer
Pythons accept; the check costs a few percent of libcst's parse.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings

from .modules import run_memo

__all__ = ["LIBCST_DEPTH", "known_tree", "python_parse", "too_deep_for_libcst", "tree_of"]

#: The deepest tree libcst's native parser is given, counted as :func:`libcst_depth` does.
#: libcst 1.x overflows an 8 MB stack (a segfault: the run ends with exit 139 and no
#: output) at about 7,000 ``and`` terms and about 5,900 names of a dotted import, less
#: with nesting around them; CPython 3.11 stops at about 3,000 levels of nesting, 3.13 at
#: up to 10,000. The bound leaves room for stacks a little smaller than 8 MB.
LIBCST_DEPTH = 4000


def python_parse(text: str) -> ast.Module:
    """``ast.parse`` without showing warnings about the user's code.

    CPython warns while parsing (``DeprecationWarning``/``SyntaxWarning`` for an invalid
    escape sequence such as ``"\\d"``); those are the compiler's and flake8's to report, and
    showing them from a linter's internals would repeat them once per tool.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(text)


def tree_of(path: str, text: str) -> ast.Module | None:
    """CPython's tree of the project file ``path`` read as ``text``; ``None`` when CPython
    rejects it (a syntax error, or nesting beyond its limits). Kept for the run."""
    trees = run_memo("python-trees", dict)
    if trees is not None:
        known = trees.get(path)
        if known is not None and known[0] == text:
            return known[1]
    try:
        tree: ast.Module | None = python_parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if trees is not None:
        trees[path] = (text, tree)
    return tree


def known_tree(path: str, text: str) -> ast.Module | None:
    """The tree :func:`tree_of` kept in this run for ``path`` read as ``text``, if any."""
    trees = run_memo("python-trees", dict)
    known = trees.get(path) if trees is not None else None
    return known[1] if known is not None and known[0] == text else None


def too_deep_for_libcst(text: str, tree: ast.Module | None) -> str | None:
    """Why libcst's parser must not be given ``text`` (CPython's ``tree`` of it, ``None``
    when CPython rejects it), or ``None`` when it may."""
    depth = _statements_depth(text, tree) if tree is not None else _token_depth(text)
    if depth <= LIBCST_DEPTH:
        return None
    return (
        f"it nests {depth:,} levels deep, counting each term of a chain of 'and'/'or' and "
        f"each name of a dotted import as a level, over the {LIBCST_DEPTH:,} that libcst's "
        "parser is given (deeper, it crashes the process)"
    )


def _statements_depth(text: str, tree: ast.Module) -> int:
    """:func:`libcst_depth` of ``tree``, walking only the top-level statements that could
    reach :data:`LIBCST_DEPTH`: what it counts grows by at most two levels per character of
    source (a unary minus, a call's parenthesis, a subscript's bracket; a chain's term or a
    dotted name costs more characters than levels), so a statement whose lines hold fewer
    characters than half the bound, less a constant for the wrappers around it, cannot, and
    is not walked. Most files walk nothing: the check costs a pass over the line lengths."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    deepest = 1
    for statement in tree.body:
        first = min(
            [statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))]
        )
        last = min(statement.end_lineno or statement.lineno, len(starts) - 1)
        if 2 * (starts[last] - starts[first - 1]) + _WRAPPERS <= LIBCST_DEPTH:
            continue
        deepest = max(deepest, 1 + libcst_depth(statement))
    return deepest


#: Levels a statement's depth may have beyond two per character (module, statement and
#: expression wrappers around its innermost construct).
_WRAPPERS = 64


def libcst_depth(tree: ast.AST) -> int:
    """The depth of the tree libcst builds for ``tree``, nearly: one level per node of
    CPython's tree, but libcst nests what CPython keeps flat: the n values of a boolean
    operation are n - 1 levels, and each name of an import's dotted module a level.
    Iterative: CPython's trees may be deeper than Python's own recursion limit."""
    deepest = 0
    pending: list[tuple[ast.AST, int]] = [(tree, 0)]
    pop, push = pending.pop, pending.append
    while pending:
        node, depth = pop()
        kind = type(node)
        if kind is ast.BoolOp:
            depth += len(node.values) - 1  # type: ignore[attr-defined]
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                deepest = max(deepest, depth + alias.name.count(".") + 1)
            deepest = max(deepest, depth + (getattr(node, "module", None) or "").count(".") + 1)
        depth += 1
        if depth > deepest:
            deepest = depth
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push((item, depth))
            elif isinstance(value, ast.AST):
                push((value, depth))
    return deepest


def _token_depth(text: str) -> int:
    """An upper bound of :func:`libcst_depth` without CPython's tree (syntax newer than
    this Python): no statement nests deeper than it has tokens, plus its indentation.
    Text the tokenizer rejects counts one level per character."""
    deepest = tokens = indent = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = token.type
            if kind == tokenize.INDENT:
                indent += 1
            elif kind == tokenize.DEDENT:
                indent -= 1
            elif kind == tokenize.NEWLINE:
                deepest = max(deepest, tokens + indent)
                tokens = 0
            elif kind not in (tokenize.NL, tokenize.COMMENT):
                tokens += 1
    except (tokenize.TokenError, SyntaxError):
        return len(text)
    return max(deepest, tokens + indent)
