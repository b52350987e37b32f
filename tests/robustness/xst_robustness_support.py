"""Run the analysis on one file exactly as flake8 would feed it, and classify the outcome.

Lives in its own module (not in a test file) so that process-pool workers can import it.
The pre-filter is deliberately bypassed: every file goes through libcst and the interpreter.
"""

from __future__ import annotations

import ast
import io
import os
import re
import time
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from extstream_lint.contract import RULES
from extstream_lint.findings import Finding
from extstream_lint.project.prefilter import might_use_external_streams

#: The name of the test-report property carrying the site-packages scan's summary.
SUMMARY_PROPERTY = "site-packages robustness scan"

#: A finding message starts with its code, then a space.
_MESSAGE = re.compile(r"^XST\d{3} \S")
#: Line ends as Python's tokenizer sees them (a lone ``\r`` ends a line too).
_NEWLINE = re.compile(r"\r\n|\r|\n")


def newlines(text: str) -> int:
    """How many line ends ``text`` has, counted like CPython (``\r\n``, ``\r``, ``\n``)."""
    return len(_NEWLINE.findall(text))


@dataclass(frozen=True)
class Outcome:
    """What happened to one file. ``problems`` are contract violations (the test fails on them)."""

    path: str
    size: int
    seconds: float
    cpython_accepts: bool
    mentions_markers: bool
    codes: tuple[str, ...] = ()
    xst000: str = ""
    problems: tuple[str, ...] = field(default=())


def decode_like_flake8(data: bytes) -> str:
    """flake8's reading: the PEP 263 encoding, or latin-1 when that fails."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeError, LookupError):
        text = data.decode("latin-1")
    return text[1:] if text.startswith("\ufeff") else text


def cpython_tree(text: str) -> ast.Module | None:
    """The tree flake8 would pass, or None when CPython rejects the file (flake8: E999)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # e.g. "'int' object is not callable"
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def check_findings(result: object, lines: int) -> list[str]:
    """Everything wrong with ``analyze_source``'s return value, per the Finding contract."""
    if not isinstance(result, list):
        return [f"returned {type(result).__name__}, not a list"]
    problems = []
    for item in result:
        if not isinstance(item, Finding):
            problems.append(f"returned a {type(item).__name__} in the list")
            continue
        if item.code not in RULES:
            problems.append(f"unknown code {item.code!r}")
        if not _MESSAGE.match(item.message) or not item.message.startswith(item.code):
            problems.append(f"message does not start with its code: {item.message[:80]!r}")
        if not (1 <= item.line <= lines + 1) or item.col < 0:
            problems.append(f"position out of the file: {item.line}:{item.col}")
    if sum(1 for item in result if isinstance(item, Finding) and item.code == "XST000") > 1:
        problems.append("more than one XST000")
    return problems


def analyse_file(path: str, progress_dir: str | None = None) -> Outcome:
    """Analyse ``path`` with the pre-filter bypassed; never raises (worker-safe)."""
    if progress_dir is not None:  # lets the parent name the file if this process dies
        Path(progress_dir, str(os.getpid())).write_text(path, encoding="utf-8")
    from extstream_lint.analysis import analyze_source

    data = Path(path).read_bytes()
    text = decode_like_flake8(data)
    tree = cpython_tree(text)
    start = time.perf_counter()
    try:
        result: object = analyze_source(text, path, tree=tree)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # even SystemExit: the analysis must never end a run
        result = None
        problems = [f"raised {type(error).__name__}: {str(error)[:200]}"]
    else:
        problems = check_findings(result, newlines(text) + 1)
    seconds = time.perf_counter() - start
    findings = [f for f in result if isinstance(f, Finding)] if isinstance(result, list) else []
    xst000 = next((f.message for f in findings if f.code == "XST000"), "")
    return Outcome(
        path=path,
        size=len(data),
        seconds=seconds,
        cpython_accepts=tree is not None,
        mentions_markers=might_use_external_streams(text),
        codes=tuple(f.code for f in findings),
        xst000=xst000,
        problems=tuple(problems),
    )
