"""The steps of a finding's trace, as its message names them, and paths a user can open.

A message says where its stream came from and which helper did the refused thing:
``(created line 4)``, ``(returned by make() line 6)``, ``(mypkg/helpers.py:5)``. The analysis
writes another module's place as the module's path below its import root (``mypkg/...``),
which in a ``src/`` layout is not a path anyone can open from the project root. This module
reads those places back (the editor server shows each as a related location) and rewrites the
other modules' paths to paths from the working directory (what the CLI's own paths are
relative to). It works on the message alone, so it needs nothing from the analysis but the
finding it reported.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from ..findings import Finding

__all__ = ["Step", "openable", "steps"]

#: A parenthesised place: an optional label (which may hold ``name()``), then ``line N``, or a
#: module path with an optional ``:N``.
_PLACE = re.compile(
    r"\((?P<label>(?:[^()]|\(\))*?)"
    r"(?:line (?P<line>\d+)|(?P<path>[\w.\-/]+\.pyi?)(?::(?P<at>\d+))?)\)"
)
#: Where the clause a place belongs to starts: after the code, a comma or a colon.
_CLAUSE = re.compile(r"^XST\d+ |, (?:and )?|: ")


@dataclass(frozen=True)
class Step:
    """One place a message names: the file (absolute), its 1-based line (``None``: the
    module as a whole), and what happened there, in the message's words."""

    path: str
    line: int | None
    what: str


def _places(message: str) -> Iterator[re.Match[str]]:
    return _PLACE.finditer(message)


def _resolve(relative: str, filename: str, roots: Iterable[str]) -> str | None:
    """The file a module path below an import root names: tried under each directory above
    ``filename`` and its ``src`` (its own import root and the default ones are among them),
    then the configured roots."""
    here = os.path.dirname(os.path.abspath(filename))
    candidates: list[str] = []
    while True:
        candidates += [here, os.path.join(here, "src")]
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    if os.path.isfile(relative):  # already a path from the working directory (openable's)
        return os.path.abspath(relative)
    for base in (*candidates, *roots):
        path = os.path.join(base, *relative.split("/"))
        if os.path.isfile(path):
            return path
    return None


def _what(message: str, match: re.Match[str]) -> str:
    """The clause the place belongs to, and its label: "synchronize() on ... 'ext': created"."""
    before = message[: match.start()]
    starts = [m.end() for m in _CLAUSE.finditer(before)]
    clause = before[starts[-1] if starts else 0 :].strip()
    label = match.group("label").strip()
    return f"{clause}: {label}" if label and clause else (clause or label)


def steps(finding: Finding, filename: str, roots: Iterable[str] = ()) -> list[Step]:
    """Every place ``finding``'s message names that can be found, in message order.

    ``filename`` is the file the finding is in; ``roots`` the configured import roots.
    XST000's message names libcst's position, not a step of a trace: it has none.
    """
    if finding.code == "XST000":
        return []
    roots = tuple(roots)
    found = []
    for match in _places(finding.message):
        if match.group("line"):
            path: str | None = os.path.abspath(filename)
            line: int | None = int(match.group("line"))
        else:
            path = _resolve(match.group("path"), filename, roots)
            line = int(match.group("at")) if match.group("at") else None
        if path is not None:
            found.append(Step(path, line, _what(finding.message, match)))
    return found


def openable(finding: Finding, filename: str, roots: Iterable[str] = ()) -> Finding:
    """``finding`` with every other module's path in its message written from the working
    directory (``src/mypkg/helpers.py:9``, not ``mypkg/helpers.py:9``); a path outside the
    working directory is written in full. Places in the file itself are left as they are."""
    if finding.code == "XST000" or ".py" not in finding.message:
        return finding
    roots = tuple(roots)
    itself = os.path.abspath(filename)
    message = finding.message
    pieces: list[str] = []
    done = 0
    for match in _places(message):
        relative = match.group("path")
        if not relative:
            continue
        path = _resolve(relative, filename, roots)
        if path is None or os.path.normcase(path) == os.path.normcase(itself):
            continue
        shown = os.path.relpath(path)
        if shown.startswith(os.pardir):
            shown = path
        shown = shown.replace(os.sep, "/")
        if shown == relative:
            continue
        pieces += [message[done : match.start("path")], shown]
        done = match.end("path")
    if not pieces:
        return finding
    pieces.append(message[done:])
    return replace(finding, message="".join(pieces))
