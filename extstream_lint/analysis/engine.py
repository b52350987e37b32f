"""Entry point of the analysis: source text in, findings out, never an exception."""

from __future__ import annotations

import ast
import sys

import libcst as cst

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
        if tree is None:
            try:
                tree = ast.parse(text)
            except (RecursionError, MemoryError):
                # CPython itself gives up; libcst would take minutes on such input.
                return [cannot_analyse("it is nested too deeply for CPython's parser")]
            except (SyntaxError, ValueError):
                tree = None  # maybe syntax newer than this Python: libcst decides
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError as error:
            return [cannot_analyse(f"libcst cannot parse it: {_one_line(error)}")]
        except (RecursionError, MemoryError):
            raise
        except Exception as error:  # libcst's own bugs surface as TypeError and friends
            reason = f"{type(error).__name__}: {_one_line(error)}"
            return [cannot_analyse(f"libcst failed on it: {reason}")]
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
        return [cannot_analyse(f"internal error {type(error).__name__}: {_one_line(error)}")]
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
