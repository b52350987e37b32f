"""Entry point of the analysis: source text in, findings out, never an exception."""

from __future__ import annotations

import ast
import sys
import warnings

import libcst as cst

from ..bugreport import HOW_TO_REPORT
from ..contract import RULES
from ..findings import Finding, cannot_analyse
from .effects import Issue
from .interpreter import Interpreter
from .positions import Position, locate
from .values import ExtStream


def analyze_source(
    source: str | bytes, filename: str = "<unknown>", tree: ast.Module | None = None
) -> list[Finding]:
    """Analyse one file and return its findings in line order.

    ``tree`` is the ``ast`` of the same source if the caller has it (flake8 does); it is
    used only for positions. Never raises: a file that cannot be analysed yields a single
    XST000 finding saying why, so one odd file never stops a run.
    """
    limit = sys.getrecursionlimit()
    try:
        text = _decode(source)
        python_rejects: str | None = None  # why CPython rejects the file, if it does
        if tree is None:
            try:
                tree = _python_parse(text)
            except (RecursionError, MemoryError):
                # CPython itself gives up; libcst would take minutes on such input.
                return [cannot_analyse("it is nested too deeply for CPython's parser")]
            except SyntaxError as error:  # maybe syntax newer than this Python: libcst decides
                python_rejects = _syntax_error(error)
            except ValueError as error:  # a null byte (a SyntaxError from Python 3.12 on)
                python_rejects = f"syntax error: {_one_line(error)}"
        try:
            module = cst.parse_module(text)
        except (RecursionError, MemoryError):
            raise
        except Exception as error:  # ParserSyntaxError, and libcst's own bugs (TypeError...)
            if python_rejects is not None:
                return [cannot_analyse(python_rejects)]
            return [cannot_analyse(_libcst_cannot_parse(error))]
        # Statements and expressions nest within CPython's own limits, but our walk takes a
        # few frames per level: leave room, as black and pylint do.
        sys.setrecursionlimit(max(limit, _RECURSION_LIMIT))
        raw = Interpreter(module).run()
        if not raw:
            return []
        return _render(module, raw, text, tree)
    except RecursionError:
        return [cannot_analyse("it is nested too deeply")]
    except Exception as error:  # a bug of ours must not end the user's lint run
        reason = f"internal error {type(error).__name__}: {_one_line(error)}; {HOW_TO_REPORT}"
        return [cannot_analyse(reason)]
    finally:
        sys.setrecursionlimit(limit)


_RECURSION_LIMIT = 8000


def _decode(source: str | bytes) -> str:
    if isinstance(source, bytes):
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        source = source.decode(encoding)
    return source[1:] if source.startswith("\ufeff") else source


def _python_parse(text: str) -> ast.Module:
    """``ast.parse`` for positions only, without showing warnings about the user's code.

    CPython warns while parsing (``DeprecationWarning``/``SyntaxWarning`` for an invalid
    escape sequence such as ``"\\d"``); those are the compiler's and flake8's to report, and
    showing them from a linter's internals would repeat them once per tool.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(text)


def _syntax_error(error: SyntaxError) -> str:
    """A syntax error as Python reports it: its line, 1-based column and message."""
    if not error.lineno:  # e.g. a null byte: CPython gives no position
        return f"syntax error: {error.msg}"
    column = f", column {error.offset}" if error.offset else ""
    return f"syntax error at line {error.lineno}{column}: {error.msg}"


def _libcst_cannot_parse(error: Exception) -> str:
    """libcst rejected a file that CPython accepts: a limit of libcst, not of the file.

    libcst's own exception text (a ``TypeError`` from deep inside it, or a parser message
    about a token) means nothing to a user, so it is replaced by what is true and useful:
    where, when libcst says, and which libcst.
    """
    where = ""
    if isinstance(error, cst.ParserSyntaxError):
        where = f" at line {error.editor_line}, column {error.editor_column}"
    return f"libcst {_libcst_version()} cannot parse a construct{where} that Python accepts"


def _libcst_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("libcst")
    except metadata.PackageNotFoundError:  # pragma: no cover - libcst imported fine above
        return "(unknown version)"


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _render(
    module: cst.Module, raw: list[Issue], text: str, tree: ast.Module | None
) -> list[Finding]:
    wanted: set[cst.CSTNode] = set()
    for item in raw:
        wanted.add(item.anchor)  # type: ignore[arg-type]
        if item.stream is not None:
            wanted.add(item.stream.origin)  # type: ignore[arg-type]
    positions = locate(module, wanted, text, tree)
    findings = []
    for item in raw:
        line, col = positions[item.anchor]  # type: ignore[index]
        rule = RULES[item.code]
        subject = _subject(item.stream, item.text, item.implicit, positions) if item.stream else ""
        findings.append(Finding(line, col, item.code, rule.message(item.operation, subject)))
    return sorted(findings)


def _subject(
    stream: ExtStream, text: str | None, implicit: bool, positions: dict[cst.CSTNode, Position]
) -> str:
    """How a message names the stream (with its preposition) and where it became external."""
    line = positions[stream.origin][0]  # type: ignore[index]
    where = f"({stream.how} line {line})"
    if stream.current_of is not None:
        named = f"{stream.noun} '{stream.current_of}'" if stream.current_of else f"an {stream.noun}"
        if implicit:
            maybe = "" if stream.must else "may be "
            return f"while the current stream {maybe or 'is '}{named} {where}"
        maybe = "" if stream.must else "which may be "
        return f"on the current stream, {maybe}{named} {where},"
    if stream.must:
        return f"on {stream.noun} '{text}' {where}" if text else f"on an {stream.noun} {where}"
    name = f"'{text}'" if text else "a stream"
    return f"on {name}, which may be an {stream.noun} {where},"
