"""Digests of summaries and of the files linted: what a reader saw, and whether it still holds.

A reader of a module records the interface digest it used, or the digests of the names it
read (mypy's fine-grained dependencies, by name); an entry is reused while they hold. These
are pure functions of a summary, shared by the scheduling of components (:mod:`.components`)
and the reuse of kept entries (:mod:`.reuse`).
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Callable

from ...project.modules import Stamp, stamp_of
from ..abstract.values import ClassInfo, FunctionInfo, Module, Summary
from .entries import Entry, StoredEntry
from .shells import Shell

__all__ = [
    "ABSENT",
    "FINDINGS_KEY",
    "FIXES_KEY",
    "PENDING",
    "RUNS_KEY",
    "copy_reads",
    "digests",
    "final_as_read",
    "group_key",
    "reading_holds",
    "same_presence",
    "stored_entry",
    "text_digest",
]

FINDINGS_KEY = "findings:"
RUNS_KEY = "runs:"
FIXES_KEY = "fixes:"
#: The digest of a name a summary does not export.
ABSENT = "-"
#: The digest of a member of a component being computed, not yet summarised: its readers
#: hold its module and record the names they read of it (:meth:`ProjectIndex._pending`).
PENDING = "pending"


def group_key(members: tuple[str, ...]) -> str:
    """What a stored entry keeps of its import component: a digest of the members in
    order (computed once per component, not per member). ``""``: none yet (a summary made
    while its cycle is computed)."""
    if not members:
        return ""
    return hashlib.sha1("\0".join(members).encode("utf-8", "surrogatepass")).hexdigest()


def stored_entry(entry: Entry, body: bytes, group: str = "") -> StoredEntry:
    """``entry`` as the cache keeps it; ``group``: the :func:`group_key` of its members."""
    module = entry.module
    return StoredEntry(
        module.name,
        entry.stamp,
        dict(entry.deps),
        entry.external,
        dict(entry.links),
        entry.digest,
        group,
        dict(entry.exports),
        copy_reads(entry.reads),
        body,
    )


def text_digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def digests(
    module: Module,
    outside: dict[str, str],
    foreign: Callable[[object], tuple[str, str, str] | None] = lambda record: None,
) -> tuple[str, dict[str, str]]:
    """The interface digest of a summary (what its dependents saw of it) and the digest of
    each name it exports (what a dependent that read only some names saw). Another module
    it holds (``import pkg.x``) counts by name, and by its own digest when that module is
    final already (outside the component being computed), so the digest is linear in the
    summary, not in everything it reaches."""
    names = {
        name: _value_digest(value, module, outside, foreign)
        for name, value in module.exports.items()
    }
    whole = hashlib.sha1(repr((sorted(names.items()), module.all_names)).encode("utf-8"))
    return whole.hexdigest(), names


def _value_digest(
    value: object,
    module: Module,
    outside: dict[str, str],
    foreign: Callable[[object], tuple[str, str, str] | None],
) -> str:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)

    def held(other: Module) -> tuple[object, tuple[str, str]]:
        return held_module, (other.name, "" if other is module else outside.get(other.name, ""))

    def record(item: object) -> tuple[object, ...]:
        home = foreign(item)
        return (held_module, home) if home is not None else facts_of(item)

    # A held module by name (and digest, if final), not by contents; the interpreter's
    # records by what they say (:func:`facts_of`). A dispatch table is consulted for
    # these types only; a ``persistent_id`` would be called for every object.
    table: dict[type, object] = {Module: held, FunctionInfo: record, Summary: facts_of}
    table[ClassInfo] = record
    table[Shell] = held  # the table is looked up by exact type: a module not read yet
    pickler.dispatch_table = table  # type: ignore[assignment]
    try:
        pickler.dump(value)
    except Exception:  # unpicklable: never equal to anything, dependents recompute
        return f"unique:{id(value)}"
    return hashlib.sha1(buffer.getvalue()).hexdigest()


#: Fields that record how the interpreter got to a fact, not the fact: the pass that last
#: joined a function's returns, how many times a summary changed on the way, a class's
#: MRO kept for lookups.
_BOOKKEEPING = frozenset({"returns_pass", "version", "_mro"})


def facts_of(record: object) -> tuple[type, tuple[()], dict[str, object]]:
    """A function, class or summary as its digest sees it: without bookkeeping, and its
    sets of names in order (a set's order follows the process's string hashing), so that
    the same facts have the same digest in every run and process: a module computed
    again after an edit is then seen unchanged by its readers when it is."""
    state = {}
    for name, item in vars(record).items():
        if name in _BOOKKEEPING:
            continue
        if type(item) in (set, frozenset):
            item = sorted(item, key=repr)
        state[name] = item
    return type(record), (), state


def held_module(*reference: str) -> None:
    """Never called: what a held module, or another module's function or class, is in the
    pickled bytes a digest is taken of."""


def reading_holds(
    digest: str | None, names: dict[str, str] | None, now: str | None, exports: dict[str, str]
) -> bool:
    """Whether a reading of a module still holds: it was not followed, or had no summary,
    and still is so; or it read all of the summary (``names`` is ``None``), whose digest is
    unchanged; or it read some names, whose digests (``exports`` now) are unchanged."""
    if names is None or not digest or not now:
        return now == digest
    return all(exports.get(name, ABSENT) == seen for name, seen in names.items())


def final_as_read(
    entry: Entry,
    current: dict[str, tuple[Module | None, str]],
    results: dict[str, Entry | None],
) -> bool:
    """Whether every member of its cycle that a summary read reads the same in the
    cycle's final summaries (not so only where :data:`CYCLE_ROUNDS` stopped the worklist)."""
    for link, digest in entry.links.items():
        if link in current:
            found = results.get(link)
            exports = found.exports if found is not None else {}
            if not reading_holds(digest, entry.reads.get(link), current[link][1], exports):
                return False
    return True


def copy_reads(reads: dict[str, dict[str, str] | None]) -> dict[str, dict[str, str] | None]:
    return {path: None if names is None else dict(names) for path, names in reads.items()}


def same_presence(probes: dict[str, Stamp | None]) -> bool:
    """Whether every path looked at to resolve an import is still there, or still absent:
    all a resolution depends on. (What a module found says is its digest's business: an
    edit of an imported module must not invalidate its importers by itself.)"""
    return all((stamp_of(path) is None) == (stamp is None) for path, stamp in probes.items())
