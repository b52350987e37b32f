"""Cheap traversal of a libcst tree: semantic children only, in source order.

libcst's own visitor dispatch visits every whitespace node and costs about as much as
parsing; walking only the fields that can hold code keeps the whole analysis within a
fraction of ``parse_module``. Source order matters: :mod:`.positions` matches nodes to the
``ast`` tree by their rank in source order.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any

import libcst as cst

#: Fields that never contain code (whitespace, punctuation, formatting).
_TRIVIA = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "operator",
        "equal",
        "colon",
        "star",
        "dot",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "newline",
        "asynchronous",
        "default_indent",
        "default_newline",
        "encoding",
        "has_trailing_newline",
        "trailing_whitespace",
        "indent",
        "prefix",
        "quote",
        "relative",
        "posonly_ind",
        "conversion",
    }
)

#: Types whose dataclass field order is not their source order.
_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.IfExp: ("body", "test", "orelse"),
    cst.FunctionDef: ("decorators", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "type_parameters", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.TypeAlias: ("name", "type_parameters", "value"),
}

_FIELDS: dict[type, tuple[str, ...]] = {}


def code_fields(node_type: type) -> tuple[str, ...]:
    """The names of the fields of ``node_type`` that can contain code, in source order."""
    names = _FIELDS.get(node_type)
    if names is None:
        names = _SOURCE_ORDER.get(node_type)
        if names is None:
            names = tuple(
                f.name
                for f in dataclasses.fields(node_type)
                if not f.name.startswith("whitespace") and f.name not in _TRIVIA
            )
        _FIELDS[node_type] = names
    return names


_IS_NODE: dict[type, bool] = {}


def _is_node(value: object) -> bool:
    # isinstance() against libcst's abstract base classes goes through ABCMeta, which is
    # slow enough to show in the budget; a per-type cache is not.
    kind = type(value)
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The direct children of ``node`` that can contain code, in source order."""
    for name in code_fields(type(node)):
        value = getattr(node, name, None)
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:  # type: ignore[union-attr]
                if _is_node(item):
                    yield item
        elif value is not None and _is_node(value):
            yield value  # type: ignore[misc]


def push_children(node: cst.CSTNode, out: list[cst.CSTNode]) -> None:
    """Append :func:`children` of ``node`` to ``out``, in the same order: the walks' inner
    loop, without a generator to resume per child (on the standard-library set the walks
    of :mod:`.bodies` were a tenth of the analysis, most of it here).

    The fields are read by one :func:`operator.attrgetter` per node type, and each child
    is tested and appended by operators alone: ``getattr``, ``dict.get`` and ``append``
    per field and child were four calls in five of the walks' (1.1 million on the stdlib
    overlay)."""
    kind = type(node)
    try:
        read, single = _READERS[kind]
    except KeyError:
        read, single = _READERS[kind] = _reader(kind)
    if read is None:
        return
    known = _IS_NODE
    for value in (read(node),) if single else read(node):
        kind = type(value)
        if kind is tuple or kind is list:
            for item in value:  # type: ignore[union-attr]
                kind = type(item)
                if known[kind] if kind in known else _is_node(item):
                    out += (item,)
        elif value is not None and (known[kind] if kind in known else _is_node(value)):
            out += (value,)  # type: ignore[arg-type]


#: Per node type, what reads its :func:`code_fields` (``None``: it has none), and whether
#: that is one field (an ``attrgetter`` of one name gives the value, not a tuple).
_READERS: dict[type, tuple[Callable[[cst.CSTNode], Any] | None, bool]] = {}


def _reader(kind: type) -> tuple[Callable[[cst.CSTNode], Any] | None, bool]:
    # a field this libcst's node lacks reads as None (:func:`children`): not read at all
    present = {f.name for f in dataclasses.fields(kind)}
    names = [name for name in code_fields(kind) if name in present]
    return (attrgetter(*names) if names else None), len(names) == 1


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else ``None``."""
    # Exact types (libcst's node classes are final): ``isinstance`` against libcst's ABCs
    # costs a Python-level check on every "no", and this runs for every call and attribute.
    if type(node) is cst.Name:
        return node.value
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def tail_name(node: cst.BaseExpression) -> str | None:
    """The last identifier of a callee: ``c`` for ``a.b.c`` and for ``c``."""
    kind = type(node)
    if kind is cst.Attribute:
        return node.attr.value  # type: ignore[attr-defined]
    if kind is cst.Name:
        return node.value  # type: ignore[attr-defined]
    return None


def string_value(node: cst.SimpleString) -> str | None:
    """The ``str`` a string literal spells; ``None`` for bytes and for a bad escape
    (``"\\N{NOSUCHNAME}"``, which only compiling the file would report).

    A literal without prefix, backslash or carriage return (a triple-quoted string reads
    CR LF and CR as a newline) is its text between the quotes. libcst's ``evaluated_value``
    compiles every literal (``ast.literal_eval``): on real code, a twentieth of the analysis
    went to the string keys of dict displays and subscripts.
    """
    text = node.value
    if text[0] in "'\"" and "\\" not in text and "\r" not in text:
        quote = 3 if text[:3] in ('"""', "'''") else 1
        return text[quote:-quote]
    try:
        with warnings.catch_warnings():  # "\d": the compiler's to report, not ours
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            evaluated = node.evaluated_value
    except Exception:
        return None
    return evaluated if isinstance(evaluated, str) else None


#: Scopes of their own: what they call is not called by the body that defines them.
_OWN_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def decorator_name(decorator: cst.BaseExpression) -> str:
    """A decorator by its tail name; a decorator factory's call by the factory's
    (``@dataclass_transform()``, ``@lru_cache(maxsize=None)``)."""
    if type(decorator) is cst.Call:
        decorator = decorator.func
    return (dotted_name(decorator) or "").rsplit(".", 1)[-1]


def called_names(function: cst.FunctionDef) -> tuple[tuple[bool, str], ...]:
    """What ``function``'s body calls by name, outside the functions and classes it
    defines: ``f(...)`` as ``(False, "f")``, ``self.m(...)`` and ``cls.m(...)`` as
    ``(True, "m")``. Syntax only: the interpreter uses it to order work, never for facts."""
    found: list[tuple[bool, str]] = []
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is cst.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is cst.Name:
                found.append((False, func.value))
            elif (
                type(func) is cst.Attribute
                and type(func.value) is cst.Name
                and func.value.value in ("self", "cls")
            ):
                found.append((True, func.attr.value))
        elif kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue  # scopes of their own (:data:`_OWN_SCOPES`)
        push_children(node, pending)
    return tuple(found)
