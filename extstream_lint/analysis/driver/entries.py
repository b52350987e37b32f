"""One module's summary as the project index keeps it, in memory and in ``.extstream_cache/``.

Below both the index (:mod:`.index`, which computes entries) and the disk cache
(:mod:`.cache`, which stores them), so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...project.modules import Stamp
from ..abstract.values import Module

if TYPE_CHECKING:
    import libcst as cst


@dataclass
class Entry:
    """One module's summary and what it was computed from."""

    module: Module
    stamp: Stamp
    #: Paths looked at to resolve the names the module asked for (``None``: absent), with
    #: their stamps: a module that appears where none was invalidates the entry.
    deps: dict[str, Stamp | None] = field(default_factory=dict)
    #: It mentions external streams itself, or imports a module that may export them.
    external: bool = False
    #: Project files the summary asked for: the interface digest of the one it used, or
    #: ``None`` when it was not followed. Unchanged digests: the entry still holds.
    links: dict[str, str | None] = field(default_factory=dict)
    #: The interface digest of ``module``: what dependents compare (mypy's interface hash).
    digest: str = ""
    #: The members of its import component, computed together to a fixpoint.
    group: tuple[str, ...] = ()
    #: The digest of each name the summary exports (``digest`` is theirs together): an
    #: importer that read only some names depends on those alone.
    exports: dict[str, str] = field(default_factory=dict)
    #: Of each module in ``links`` with a summary, the digests of the names read from it
    #: (``None``: all of it, as a ``*`` import reads it).
    reads: dict[str, dict[str, str] | None] = field(default_factory=dict)


@dataclass
class StoredEntry:
    """An :class:`Entry` as ``.extstream_cache/`` keeps it: what it was computed from, in
    the clear (checked before anything else is read), and its summary's fields pickled
    apart (``body``) with every other project module it holds named, not copied: a copy
    would repeat, in every entry, the summaries of everything the module reaches
    (:meth:`.reuse.Reuse._body`)."""

    name: str
    stamp: Stamp
    deps: dict[str, Stamp | None]
    external: bool
    links: dict[str, str | None]
    digest: str
    #: The :func:`.digests.group_key` of its component's members: one string per entry,
    #: not the member list (a 5,000-module cycle stored it 5,000 times: 1 GB). The
    #: members are what the import graph says in the run that reuses the entry; a key
    #: that names other members is another component's entry.
    group: str
    exports: dict[str, str]
    reads: dict[str, dict[str, str] | None]
    #: ``(exports, all_names, path)`` of the summary, pickled with module references.
    body: bytes


@dataclass
class FindingsEntry:
    """The findings of one linted file, and what they rest on: the digest of the text they
    were computed from, the paths looked at (with stamps) and, for every project module the
    file asked for, the digest of the summary it used."""

    text: str
    deps: dict[str, Stamp | None]
    links: dict[str, str]
    #: Of each module asked for, the digests of the names read from it (see :class:`Entry`).
    reads: dict[str, dict[str, str] | None]
    #: (line, column, code, message) of each finding.
    findings: list[tuple[int, int, str, str]]


@dataclass
class FixesEntry:
    """The fixes found for findings of one file (``--fix``, the text report's hint, SARIF):
    a pure function of the text and the finding, kept with the digest of the text, so a
    warm run that reports kept findings needs neither libcst nor a parse to say which have
    a fix. Plain data: each fix as ``(description, safe, ((start, end, text), ...))``."""

    text: str
    #: (line, column, code, message) of each finding asked about, with its fix (or ``None``).
    fixes: dict[tuple[int, int, str, str], tuple[str, bool, tuple[object, ...]] | None]


@dataclass
class Linted:
    """A summary's entry as the lint of its file built it (:mod:`.linted`), with what its
    digests read of the index: final modules' digests by name, and the home each record
    they carry had (another module's export and its digest, ``None`` for its own)."""

    text: str
    tree: cst.Module
    module: Module
    #: The importer's records after the learning passes: ``used``, ``links``, ``reads``.
    used: dict[str, Stamp | None]
    links: dict[str, str | None]
    reads: dict[str, dict[str, str] | None]
    names: dict[str, str]
    homes: dict[object, object]
    digest: str = ""
    exports: dict[str, str] = field(default_factory=dict)
