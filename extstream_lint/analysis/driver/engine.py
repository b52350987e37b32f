"""Entry point of the analysis: source text in, findings out, never an exception."""

from __future__ import annotations

import ast
import os
import sys

import libcst as cst

from ...bugreport import HOW_TO_REPORT
from ...contract import RULES
from ...findings import Finding, cannot_analyse
from ...project.collector import fewer_collections
from ...project.limits import over_limit
from ...project.modules import module_name, one_run
from ..abstract.atoms import ExtStream, Remote
from ..interp.interpreter import Interpreter
from ..interp.summaries import CallIssue, describe_call
from ..semantics.sites import Issue
from ..source.parsing import Unparsable, one_line, parse
from ..source.positions import Position, locate
from . import cuts, linted
from .budget import BudgetedInterpreter, BudgetExceeded
from .index import Importer, ProjectIndex
from .projects import decode, placed


def analyze_source(
    source: str | bytes,
    filename: str = "<unknown>",
    tree: ast.Module | None = None,
    project: ProjectIndex | None = None,
    kept: bool = True,
) -> list[Finding]:
    """Analyse one file and return its findings in line order.

    ``tree`` is the ``ast`` of the same source if the caller has it (flake8 does); it is
    used only for positions. ``filename`` places the file in its project: imports of the
    project's modules are followed through ``project`` (by default a process-wide index
    without a disk cache). Never raises: a file that cannot be analysed yields a single
    XST000 finding saying why, so one odd file never stops a run. With ``kept``, findings
    kept from an earlier lint are returned if nothing they rest on changed (an adapter
    that asked :func:`.projects.kept_findings` already passes ``False``).
    """
    limit = sys.getrecursionlimit()
    try:
        text = decode(source)
        too_large = over_limit(text)
        if too_large is not None:  # not even its kept findings: the limit may have changed
            return [cannot_analyse(too_large)]
        index, path = placed(filename, project)
        # The files do not change while one file is analysed: stat once.
        with fewer_collections(), one_run():
            if kept and index is not None and path is not None:
                known = index.known_findings(path, text)
                if known is not None:  # nothing it rests on changed: not even parsed
                    return known
            return _analyse(text, filename, tree, index, path)
    except RecursionError:
        return [cannot_analyse("it is nested too deeply")]
    except Exception as error:  # a bug of ours must not end the user's lint run
        reason = f"internal error {type(error).__name__}: {one_line(error)}; {HOW_TO_REPORT}"
        return [cannot_analyse(reason)]
    finally:
        sys.setrecursionlimit(limit)


def _analyse(
    text: str,
    filename: str,
    tree: ast.Module | None,
    index: ProjectIndex | None,
    path: str | None,
) -> list[Finding]:
    """:func:`analyze_source` on the decoded text (raises; the caller turns it into XST000)."""
    try:
        module, tree = index.parse(path, text, tree) if index is not None else parse(text, tree)
    except Unparsable as unparsable:
        return [cannot_analyse(unparsable.reason)]
    # Statements and expressions nest within CPython's own limits, but our walk takes a
    # few frames per level: leave room, as black and pylint do.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))
    try:
        interpreter, raw = _interpret(module, text, filename, index, path)
    except BudgetExceeded as exceeded:
        shown = os.path.basename(filename) if path else "this file"
        return [
            cannot_analyse(
                f"the analysis of {shown} went over its budget of {exceeded.budget:,} "
                "statement executions"
            )
        ]
    findings = _render(interpreter.module, raw, text, tree, filename) if raw else []
    if interpreter.cuts:  # a bound cut where a stream flows: said there (cuts.py)
        anchors = [cuts.anchor(node) for node in interpreter.cuts.values()]
        positions = locate(interpreter.module, anchors, text, tree)
        findings = sorted((*findings, *cuts.cut_findings(interpreter.cuts, positions)))
    if index is not None and path is not None and isinstance(interpreter.facts, Importer):
        index.keep_findings(path, text, interpreter.facts, findings)
    return findings


_RECURSION_LIMIT = 8000


def _interpret(
    module: cst.Module, text: str, filename: str, index: ProjectIndex | None, path: str | None
) -> tuple[Interpreter, list[Issue]]:
    """The issues of one file, and the interpreter that found them, placed in its project
    when it has a real path.

    When this run summarised the file already, following every import as a lint does, the
    summary's interpreter has learnt what a lint's learning passes would: only its reporting
    pass runs. Should that pass ask for a module the summary did not (it never does when
    both see the same facts), the file is interpreted afresh.
    """
    if index is None or path is None:
        interpreter = BudgetedInterpreter(module)
        return interpreter, interpreter.run()
    roots = index.roots(filename)
    name = module_name(filename, roots)
    learnt = index.learnt(path, text, name)
    if learnt is not None and isinstance(learnt.facts, Importer):
        importer = learnt.facts
        importer.as_linted()
        asked = set(importer.links)
        raw = learnt.report()
        if set(importer.links) == asked:
            return learnt, raw
    is_package = os.path.basename(filename) == "__init__.py"
    interpreter = BudgetedInterpreter(module, Importer(index, roots), name, is_package)
    if not linted.wanted(index, path):
        return interpreter, interpreter.run()
    # An importer linted later may ask for this file's summary: what the learning passes
    # learnt is its entry, built before the reporting pass (:mod:`.linted`).
    linted.keep(index, path, interpreter, interpreter.summarise(), text)
    return interpreter, interpreter.report()


def _render(
    module: cst.Module, raw: list[Issue], text: str, tree: ast.Module | None, filename: str
) -> list[Finding]:
    wanted: set[cst.CSTNode] = set()
    for item in raw:
        wanted.add(item.anchor)  # type: ignore[arg-type]
        via = item.sink if isinstance(item, CallIssue) else None
        for extra in (item.stream.origin if item.stream else None, via and via.anchor):
            if isinstance(extra, cst.CSTNode):
                wanted.add(extra)
    positions = locate(module, wanted, text, tree)
    findings = []
    here = os.path.basename(filename) if filename and not filename.startswith("<") else "line"
    for item in raw:
        line, col = positions[item.anchor]  # type: ignore[index]
        rule = RULES[item.code]
        subject = _subject(item.stream, item.text, item.implicit, positions) if item.stream else ""
        operation = item.operation
        if isinstance(item, CallIssue) and item.sink is not None:
            anchor = item.sink.anchor
            if isinstance(anchor, Remote):
                where = f"{anchor.path}:{anchor.line}" if anchor.line else anchor.path
            else:
                where = (
                    f"{here}:{positions[anchor][0]}"
                    if here != "line"
                    else (f"line {positions[anchor][0]}")
                )
            operation = describe_call(item.callee, item.sink, where)
        findings.append(Finding(line, col, item.code, rule.message(operation, subject)))
    return sorted(findings)


def _subject(
    stream: ExtStream, text: str | None, implicit: bool, positions: dict[cst.CSTNode, Position]
) -> str:
    """How a message names the stream (with its preposition) and where it became external."""
    origin = stream.origin
    if isinstance(origin, Remote):
        place = f"{origin.path}:{origin.line}" if origin.line else origin.path
        where = f"({stream.how} {place})"
    else:
        where = f"({stream.how} line {positions[origin][0]})"  # type: ignore[index]
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
