"""Which top-level names of a module may hand out an external stream: the words to spell.

Importing a module that may hand out an external stream does not make every importer a
holder of one. ``os`` re-exporting an adapter's ``external_stream`` hands a stream only to
the modules that spell ``external_stream``; ``inspect``, which uses ``os.path``, never gets
one, and its lint is not needed. So the graph keeps, per module, the names through which
it may hand out a stream, and asks an importer's text whether it spells any of them.

Per top-level statement (CPython's tree gives its lines and the names it binds; a regex
gives the words on those lines), a statement carries a stream when its lines mention one
or spell a name that carries one in a module it imports; the names it binds then carry
one, and so does the module-level state it spells (a variable or class that one helper
fills and another reads), though not the functions and modules it merely calls. A function
of the module that such a statement calls or decorates with (``@kind("io") def make(h):
return ExternalStream(h)``, ``register("io", ExternalStream(h))``) may store what it is given
into the state its own body spells (``_KINDS[name] = fn``): that state carries one too. To a
fixpoint, linear in the words. Generous by construction: comments and strings count as
spelling, and a file CPython rejects gives all its words.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .markers import IDENTIFIER, occurs

__all__ = ["Statement", "carried", "spelled", "statements", "words"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A ``global`` statement on a line of its own (not the word in prose).
_GLOBAL = re.compile(
    r"^[ \t]*global[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*(?:[#;\n]|$)",
    re.MULTILINE,
)


def words(text: str) -> frozenset[str]:
    """Every identifier-like word of ``text``, comments and strings included."""
    return frozenset(_WORD.findall(text))


#: Above this many names, one pass over every word of the text beats a search per name.
_FEW = 24


def spelled(text: str, wanted: frozenset[str]) -> frozenset[str]:
    """The names of ``wanted`` that ``text`` spells as whole words (comments and strings
    included): ``str.find`` per name when they are few, the text's words when many."""
    if len(wanted) > _FEW:
        return wanted & words(text)
    return frozenset(name for name in wanted if occurs(text, name, IDENTIFIER, IDENTIFIER))


@dataclass(frozen=True)
class Statement:
    """One top-level statement: the names it binds, the words on its lines, its marker."""

    bound: frozenset[str]
    words: frozenset[str]
    #: It may make or annotate an external stream (``ExternalStream``, ``stream_ptr``).
    external: bool
    #: A ``def``: a carrying statement that calls it may have it store into the state
    #: its body spells.
    function: bool = False


#: Statements whose names are code, not state: a relevant statement that calls a function
#: or uses a module does not make it hand out streams (its own statement decides that).
_CODE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom)


def statements(tree: ast.Module, text: str) -> tuple[list[Statement], frozenset[str]]:
    """The top-level statements of ``text`` (CPython's ``tree`` of it), and the module's
    state: the names bound other than by ``def`` and ``import`` (variables, classes), and
    those a function declares ``global``."""
    lines = text.split("\n")
    found: list[Statement] = []
    state: set[str] = set()
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        end = node.end_lineno or node.lineno
        segment = "\n".join(lines[first - 1 : end])
        bound = frozenset(_bound(node))
        if not isinstance(node, _CODE):
            state |= bound
        external = "ExternalStream" in segment or "stream_ptr" in segment
        function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        found.append(Statement(bound, words(segment), external, function))
    if "global" in text:
        for names in _GLOBAL.findall(text):
            state.update(name.strip() for name in names.split(","))
    return found, frozenset(state)


def carried(
    found: list[Statement], state: frozenset[str], imported: frozenset[str]
) -> frozenset[str]:
    """The module's names that may hand out an external stream: bound by a statement that
    mentions one or spells a name in ``imported`` (those of the modules this one
    imports), and the state such a statement spells; then every statement that spells
    one of those, and so on to a fixpoint."""
    tops = state.union(*(statement.bound for statement in found))
    spelling: dict[str, list[int]] = {}  # a top-level name -> the statements spelling it
    stores: dict[str, frozenset[str]] = {}  # a function -> the state its body spells
    for number, statement in enumerate(found):
        for word in statement.words & tops:
            spelling.setdefault(word, []).append(number)
        if statement.function:
            for name in statement.bound:
                stores[name] = statement.words & state
    queue = [
        number
        for number, statement in enumerate(found)
        if statement.external or not statement.words.isdisjoint(imported)
    ]
    done = [False] * len(found)
    names: set[str] = set()
    while queue:
        number = queue.pop()
        if done[number]:
            continue
        done[number] = True
        statement = found[number]
        new = statement.bound | (statement.words & state)
        for called in statement.words & stores.keys():
            if called not in statement.bound:  # a function it calls: the state it fills
                new |= stores[called]
        new -= names
        names |= new
        for word in new:
            queue.extend(other for other in spelling.get(word, ()) if not done[other])
    return frozenset(names)


def _bound(node: ast.stmt) -> Iterable[str]:
    """The names a top-level statement binds (in a compound one, anywhere inside it)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return _imported(node)
    if isinstance(node, ast.Assign):
        return [name for target in node.targets for name in _stored(target)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return _stored(node.target)
    if isinstance(node, ast.Expr):
        return _stored(node.value)  # a walrus: ``(x := f())``
    out: list[str] = []
    for inner in ast.walk(node):  # if / try / with / for / while / match at top level
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
            out.append(inner.id)
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(inner.name)
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            out.extend(_imported(inner))
        elif isinstance(inner, (ast.MatchAs, ast.MatchStar)) and inner.name:
            out.append(inner.name)
    return out


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.asname or alias.name.split(".", 1)[0] for alias in node.names]
    return [alias.asname or alias.name for alias in node.names if alias.name != "*"]


def _stored(node: ast.AST) -> list[str]:
    return [
        inner.id
        for inner in ast.walk(node)
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store)
    ]
