"""One finding per defect: which defect a finding reports, read from its message.

A **defect** is one refused operation reached by one external stream: the operation's code
and the place it happens (a finding at the operation is on its line; a finding at a call
names the operation as ``(file.py:line)``, the helper's line that refuses), and the stream's
origin as the message names it (``created line 16``, ``returned by make_stream() line 14``,
``created streams.py:5``). The contract (issue 38, family 2) puts each defect at one place:
at the operation when what makes the value external is known without the caller (the
function's own code, its class's guarantee, a module global), else at the innermost call
whose argument makes it external. A defect reported at two places (inside a method and
again at the call that runs it, or at a call three levels above the operation as well as at
the one that passes the stream) is what :func:`reported_twice` finds. Two callers that each
pass their own external stream to one helper are two defects (two origins), one each.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Callable, Mapping

#: (path, line, code), as the suite compares findings.
Key = tuple[str, int, str]
#: (code, operation path, operation line, origin).
Defect = tuple[str, str, int, str]

#: ``(helpers.py:8)``: the operation a call reaches (a path and a line, nothing else).
_OPERATION = re.compile(r"\((?P<path>[^()\s:]+\.py):(?P<line>\d+)\)")
#: ``XST101 job.process() calls ...``: the callee a call's finding names first.
_CALLEE = re.compile(r"^XST\d{3} (?P<name>[\w.]+)\(\) calls ")
#: ``through step()``: a helper between the callee and the operation.
_THROUGH = re.compile(r"through ([\w.]+)\(\)")
#: ``(created line 16)``, ``(returned by make() line 14)``, ``(created streams.py:5)``.
_ORIGIN = re.compile(r"\((?P<origin>[^()]*(?:\([^()]*\)[^()]*)*?(?:line \d+|\S+\.py:\d+))\)")


def defect(key: Key, message: str) -> Defect:
    """The defect a finding reports (:mod:`module docstring <.placement>`)."""
    path, line, code = key
    operation = _OPERATION.search(message)
    if operation is not None:
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        named = operation["path"]
        op_path = named if "/" in named or not folder else f"{folder}/{named}"
        path, line = op_path, int(operation["line"])
    origin = _ORIGIN.search(message[operation.end() :] if operation else message)
    return code, path, line, origin["origin"] if origin else ""


def chain(message: str) -> set[str]:
    """The functions a call's finding says it goes through, by their last name: the callee
    (``job.process() calls ...``) and each helper after it (``through step()``)."""
    names: list[str] = []
    head = _CALLEE.match(message)
    if head is not None:
        names.append(head["name"])
    names.extend(_THROUGH.findall(message))
    return {name.rsplit(".", 1)[-1] for name in names}


def reported_twice(
    messages: Mapping[Key, str], function_of: Callable[[Key], str]
) -> dict[Defect, list[Key]]:
    """The defects reported at two places one of which is on the other's call chain: a
    finding in a function (``function_of``: its dotted name) that another finding of the
    same defect names as a function its call goes through (inside the method and at the call
    that runs it; at the call that passes the stream and at a call above it). Sibling calls
    that each pass the stream (``join(ext, s)`` then ``join_through(ext, s)``), or that each
    run the operation on one object (``other.sync()`` in a helper, ``configured.sync()`` in
    its caller), are each a call the user must change: not one defect reported twice."""
    places: dict[Defect, list[Key]] = defaultdict(list)
    for key, message in messages.items():
        places[defect(key, message)].append(key)
    twice = {}
    for found, keys in places.items():
        for outer in keys:
            names = chain(messages[outer])
            inner = [k for k in keys if k != outer and _last(function_of(k)) in names]
            if inner:
                twice[found] = sorted({outer, *inner})
    return twice


def _last(function: str) -> str:
    return function.rsplit(".", 1)[-1]


def enclosing(source: str, line: int) -> str:
    """The innermost function (dotted through classes and functions) whose body holds
    ``line``, or ``""`` for module level (a file this Python cannot parse: the line)."""
    best: tuple[int, str] = (-1, "")

    def visit(node: ast.AST, prefix: str, depth: int) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}" if prefix else child.name
                end = child.end_lineno or child.lineno
                inside = child.lineno <= line <= end
                if inside and not isinstance(child, ast.ClassDef) and depth + 1 > best[0]:
                    best = (depth + 1, name)
                if not inside:
                    continue
            visit(child, name, depth + 1)

    try:
        tree = ast.parse(source)
    except SyntaxError:  # newer syntax than this Python's: each line its own place
        return f"<line {line}>"
    visit(tree, "", 0)
    return best[1]


__all__ = ["Defect", "chain", "defect", "enclosing", "reported_twice"]
