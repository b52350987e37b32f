"""Every libcst parse of the analysis goes through :func:`parse`: CPython's parser first.

libcst's native parser crashes the whole process (a segfault, not an exception) on code
nested deeper than CPython accepts, and is super-linear near that limit. CPython's own
parser is about five times faster and fails cleanly, so it runs first on every file,
the file being linted and every project module it imports alike: one file nested too
deeply must cost one XST000 (or one import not followed), never the run. Its tree is not
wasted: it gives the positions of findings (:mod:`.positions`).

libcst validates every node it builds (``CSTNode.__post_init__``), which its own source
calls a cost of parsing ("PERF: ... would allow us to avoid validating the tree when
parsing a file"): a node its parser built from source that CPython accepted is valid by
construction. :func:`parse` switches that hook off for the length of its own parse (about
a tenth of libcst's parse time), only when no node class defines a ``__post_init__`` of
its own (checked once), and always puts it back.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import libcst as cst
from libcst._nodes.base import CSTNode

from ...project.pytrees import python_parse, too_deep_for_libcst

__all__ = ["Unparsable", "one_line", "parse", "python_parse"]


class Unparsable(Exception):
    """The file cannot be analysed; ``reason`` says why, as a user should read it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parse(text: str, tree: ast.Module | None = None) -> tuple[cst.Module, ast.Module | None]:
    """libcst's tree of ``text`` and CPython's (``tree`` when the caller has it already, as
    flake8 does; ``None`` for syntax newer than this Python, which libcst may still read).

    Raises :class:`Unparsable` when neither parser accepts the file, or CPython gives up
    on its nesting; ``RecursionError`` and ``MemoryError`` from libcst itself propagate.
    """
    if "\0" in text:
        # No Python reads a null byte (CPython refuses the file, flake8 reports E999 and
        # runs no plugin): never syntax newer than this Python, so libcst does not decide.
        raise Unparsable("syntax error: source code cannot contain null bytes")
    python_rejects: str | None = None  # why CPython rejects the file, if it does
    if tree is None:
        try:
            tree = python_parse(text)
        except (RecursionError, MemoryError):
            # CPython itself gives up; libcst would take minutes, or crash, on such input.
            raise Unparsable("it is nested too deeply for CPython's parser") from None
        except SyntaxError as error:  # maybe syntax newer than this Python: libcst decides
            python_rejects = _syntax_error(error)
        except ValueError as error:  # a null byte (a SyntaxError from Python 3.12 on)
            python_rejects = f"syntax error: {one_line(error)}"
    too_deep = too_deep_for_libcst(text, tree)  # libcst's parser would crash the process
    if too_deep is not None:
        raise Unparsable(python_rejects or too_deep)
    try:
        module = _parse_module(text)
    except (RecursionError, MemoryError):
        raise
    except Exception as error:  # ParserSyntaxError, and libcst's own bugs (TypeError...)
        raise Unparsable(python_rejects or _libcst_cannot_parse(error, text, tree)) from None
    return module, tree


def _validation_hook() -> Callable[[CSTNode], None] | None:
    """``CSTNode.__post_init__`` if it is the only one of libcst's nodes (all it does is
    validate); ``None`` if a node class has its own, whose work a parse must not skip."""
    pending = [CSTNode]
    while pending:
        cls = pending.pop()
        if cls is not CSTNode and "__post_init__" in cls.__dict__:
            return None
        pending.extend(cls.__subclasses__())
    return CSTNode.__dict__.get("__post_init__")


_VALIDATE = _validation_hook()


def _not_validated(self: CSTNode) -> None:
    """Stands in for libcst's validation while :func:`_parse_module` parses."""


def _parse_module(text: str) -> cst.Module:
    """``libcst.parse_module`` without validating each node it builds (see the module)."""
    if _VALIDATE is None:
        return cst.parse_module(text)
    CSTNode.__post_init__ = _not_validated  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        CSTNode.__post_init__ = _VALIDATE  # type: ignore[method-assign]


def one_line(error: BaseException) -> str:
    """An exception's text on one line, at most 200 characters."""
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _syntax_error(error: SyntaxError) -> str:
    """A syntax error as Python reports it: its line, 1-based column and message."""
    if not error.lineno:  # e.g. a null byte: CPython gives no position
        return f"syntax error: {error.msg}"
    column = f", column {error.offset}" if error.offset else ""
    return f"syntax error at line {error.lineno}{column}: {error.msg}"


def _libcst_cannot_parse(error: Exception, text: str, tree: ast.Module | None) -> str:
    """libcst rejected a file that CPython accepts: a limit of libcst, not of the file.

    libcst's own exception text (a ``TypeError`` from deep inside it, or a parser message
    about a token) means nothing to a user, so it is replaced by what is true and useful:
    which libcst, the statement it cannot read, and where its parser gave up. The parser
    reports the furthest point it reached, which may be past the construct (``(x): int = 0``
    gives up on the next line), so the statement is found by asking libcst for each
    top-level statement of CPython's tree alone (only on this failure path).
    """
    where = []
    line = _first_rejected_statement(text, tree)
    if line is not None:
        where.append(f"the statement at line {line}")
    if isinstance(error, cst.ParserSyntaxError):
        where.append(f"it gave up at line {error.editor_line}, column {error.editor_column}")
    said = f" ({'; '.join(where)})" if where else ""
    return f"libcst {_libcst_version()} cannot parse a construct that Python accepts{said}"


def _first_rejected_statement(text: str, tree: ast.Module | None) -> int | None:
    """The first line of the first top-level statement that libcst cannot parse on its own
    (decorators included); ``None`` when CPython's tree is missing or each one parses."""
    if tree is None:
        return None
    lines = text.splitlines(keepends=True)
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", [])
        first = min([statement.lineno, *(d.lineno for d in decorators)])
        last = statement.end_lineno or statement.lineno
        try:
            _parse_module("".join(lines[first - 1 : last]))
        except (RecursionError, MemoryError):
            return None
        except Exception:
            return first
    return None


def _libcst_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("libcst")
    except metadata.PackageNotFoundError:  # pragma: no cover - libcst imported fine above
        return "(unknown version)"
