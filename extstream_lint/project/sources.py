"""Project files: each read at most once per run, and what its text says about imports.

This is the bottom of the project model (files and imports). :func:`read_project_file` is
the one function that opens a project file for the linter: the pre-filter, the import
graph, the summaries and the CLI all read through it, so within one run
(:func:`.modules.one_run`) a file is opened once whatever asks for it, and tests count
opens here. What a file's text says for the import graph (:class:`FileFacts`: does it
mention external streams, may it reach a refused operation, which project files it
imports) is kept per file with the stamps it rests on, in memory and, with ``persist``, in
``.extstream_cache/``, so a warm run knows an unchanged file without opening it.

No libcst here: strings, paths and ``stat``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable

from .diskio import entry_directory, load, project_root, store
from .limits import max_file_bytes
from .markers import enables_transfer, hands_out_external, may_reach_refused
from .modules import (
    Probes,
    Stamp,
    current_run,
    file_imports,
    kept_stamp,
    racy,
    roots_for,
    run_memo,
    stamp_holds,
    stamp_of,
)
from .regular import read_regular

#: Every open of a project file by :func:`read_project_file`, by path (tests count them).
OPENS: Counter[str] = Counter()


def read_project_file(path: str) -> bytes:
    """The bytes of the project file ``path`` (absolute), opened once per run; raises
    ``OSError`` as ``open`` does (remembered too: the file is not tried twice), and
    :class:`.regular.TooLarge` for a file over the limit on one file's analysis
    (:mod:`.limits`), known from its size before any byte is read: such a file is
    analysed by no one, and a sparse file of gigabytes must not be read to learn it."""
    texts = run_memo("texts", dict)
    if texts is not None and path in texts:
        found = texts[path]
        if isinstance(found, OSError):
            raise found
        return found
    OPENS[path] += 1
    try:
        data = _read_bytes(path)
    except OSError as error:
        if texts is not None:
            texts[path] = error
        raise
    if texts is not None:
        texts[path] = data
    return data


def _read_bytes(path: str) -> bytes:
    """A file's bytes through the descriptor (:func:`.regular.read_regular`): only a
    regular file is read, so a FIFO or a device in place of a project file raises
    :class:`.regular.NotRegular` (an ``OSError``: the file cannot be read) instead of
    hanging the run. ``open(path, "rb").read()`` also makes a file object and a buffer,
    and asks the terminal and the position; the census reads every file of a project on
    its first run."""
    return read_regular(path, max_file_bytes())


def decode_python(data: bytes) -> str:
    """The one decoding rule of both front ends: PEP 263 (the coding cookie, else UTF-8; a
    UTF-8 BOM dropped), and flake8's fallback, latin-1, when that fails (an unknown codec, a
    cookie that contradicts the BOM, bytes the encoding cannot decode). flake8 reads every
    file so (``FileProcessor.read_lines``, ``strip_utf_bom``), so the CLI does too, and a
    file gives the same findings through both. Never raises: latin-1 decodes any bytes.
    Newlines are kept."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeError, LookupError):
        text = data.decode("latin-1")
    # flake8 drops a BOM however the file was decoded (``strip_utf_bom``): as latin-1 it
    # reads as three characters
    if text.startswith("\ufeff"):
        return text[1:]
    return text[3:] if text.startswith("\xef\xbb\xbf") else text


def decode(data: bytes) -> str:
    """:func:`decode_python`, newlines as flake8 reads them (``\\r\\n`` and ``\\r`` become
    ``\\n``)."""
    text = decode_python(data)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_text(path: str) -> str | None:
    """The decoded text of a project file, or ``None`` if it cannot be read or decoded."""
    return _decoded_or_none(_read_or_none(path))


def _read_or_none(path: str) -> bytes | None:
    try:
        return read_project_file(path)
    except OSError:
        return None


def _decoded_or_none(data: bytes | None) -> str | None:
    return None if data is None else decode(data)  # decode never raises (latin-1)


class FileFacts(tuple):
    """What one file's text says for the import graph, and what that rests on.

    A plain tuple (fast to pickle): the file's stamp, whether it mentions external streams,
    whether it may reach a refused operation itself, the project files it imports (those
    its top-level imports run first: ``strong`` of them; those it binds whole, a module
    object or ``*``: ``whole``), the paths looked at to resolve those imports with their
    stamps, and whether it may import ``transfer_to_npu`` (``transfer``: running it may
    remap ``torch.cuda`` for the process). Valid while the stamp and every probe are
    unchanged: nothing transitive, each file answers for itself.
    """

    __slots__ = ()

    def __new__(
        cls,
        stamp: Stamp | None,
        external: bool,
        refers: bool,
        links: tuple[str, ...],
        probes: Probes,
        strong: int = 0,
        whole: tuple[str, ...] = (),
        transfer: bool = False,
    ) -> FileFacts:
        return tuple.__new__(cls, (stamp, external, refers, links, probes, strong, whole, transfer))

    stamp = property(lambda self: self[0])
    external = property(lambda self: self[1])
    refers = property(lambda self: self[2])
    links = property(lambda self: self[3])
    probes = property(lambda self: self[4])
    strong = property(lambda self: self[5])
    whole = property(lambda self: self[6])
    transfer = property(lambda self: self[7])


def facts_of_text(text: str, path: str, roots: tuple[str, ...], stamp: Stamp | None) -> FileFacts:
    """The facts of ``text`` read as the file ``path`` (a file or a buffer handed in)."""
    external = hands_out_external(text)
    refers = external or may_reach_refused(text)
    if "import" in text:
        links, strong, probes, whole = file_imports(text, path, roots)
    else:
        links, strong, probes, whole = (), 0, (), ()
    transfer = external and enables_transfer(text)
    return FileFacts(stamp, external, refers, links, probes, strong, whole, transfer)


class SourceFacts:
    """The :class:`FileFacts` of every project file met, for one set of configured roots.

    Long-lived (one per process and settings); each entry is checked against the file
    system once per run (a few ``stat`` calls) and recomputed only when a stamp changed.
    """

    def __init__(self, src: tuple[str, ...] = (), persist: bool = False) -> None:
        self.src = src
        self.persist = persist
        self._facts: dict[str, FileFacts] = {}
        self._loaded: set[str] = set()
        self._dirty: set[str] = set()
        #: File -> (stamp, names asked, those it spells): asked only of files that import
        #: a module that may hand out a stream, kept like the facts (their own table,
        #: loaded on first use), so a warm run does not open the file to ask again.
        self._spelled: dict[str, tuple[Stamp | None, frozenset[str], frozenset[str]]] = {}
        self._spelled_loaded: set[str] = set()
        self._spelled_dirty: set[str] = set()
        #: File -> (stamp, names it imports that carry streams, the names through which it
        #: hands them on): :meth:`.graph.ImportGraph._names_in`'s answer, which parses the
        #: file; kept like the words, so a warm run parses no file to ask it again.
        self._carried: dict[str, tuple[Stamp, dict[frozenset[str], frozenset[str]]]] = {}
        self._carried_loaded: set[str] = set()
        self._carried_dirty: set[str] = set()
        #: Listed roots -> (stamp of every Python file under them, those that mention
        #: external streams): the census's question (:mod:`.census`), kept with its stamps.
        self._census: dict[tuple[str, ...], tuple[dict[str, Stamp], frozenset[str]]] = {}
        self._census_loaded: set[str] = set()
        self._census_dirty: set[str] = set()
        self._saving = False
        #: Files whose facts were computed from their text (not reused), for tests.
        self.scanned: list[str] = []

    def facts(self, path: str) -> FileFacts | None:
        """The facts of the project file ``path`` (absolute) as it is on disk; ``None`` if
        it cannot be read."""
        checked = run_memo(f"checked-facts:{id(self)}", set)
        if checked is not None and path in checked:
            return self._facts.get(path)
        self._load(path)
        known = self._facts.get(path)
        if known is not None and self._valid(known, path):
            if checked is not None:
                checked.add(path)
            return known
        stamp = stamp_of(path)
        data = _read_or_none(path) if stamp is not None else None
        text = _decoded_or_none(data)
        if text is None or stamp is None or data is None:
            self._facts.pop(path, None)
            if checked is not None:
                checked.add(path)
            return None
        facts = facts_of_text(text, path, self.roots(path), kept_stamp(stamp, data))
        self.scanned.append(path)
        self._facts[path] = facts
        if checked is not None:
            checked.add(path)
        if self.persist:
            root = project_root(os.path.dirname(path))
            if root is not None:
                self._dirty.add(root)
        return facts

    def roots(self, path: str) -> tuple[str, ...]:
        return roots_for(path, self.src)

    def spelled(self, path: str, wanted: frozenset[str]) -> frozenset[str]:
        """The names of ``wanted`` that the project file ``path``, as on disk, spells
        (:func:`.names.spelled`); kept with its stamp, so a warm run that asks the same
        (nothing it imports changed what it hands out) does not open the file."""
        facts = self.facts(path)
        if facts is None:
            return frozenset()
        root = project_root(os.path.dirname(path)) if self.persist else None
        if root is not None and root not in self._spelled_loaded:
            self._spelled_loaded.add(root)
            self._load_spelled(root)
        known = self._spelled.get(path)
        if known is not None and known[0] == facts.stamp and wanted <= known[1]:
            return known[2] & wanted
        from .names import spelled

        text = read_text(path)
        found = spelled(text, wanted) if text is not None else frozenset()
        self._spelled[path] = (facts.stamp, wanted, found)
        if root is not None:
            self._spelled_dirty.add(root)
        return found

    def carried(
        self, path: str, imported: frozenset[str], names: Callable[[], frozenset[str]]
    ) -> frozenset[str]:
        """``names()``: the names through which the project file ``path``, as on disk, hands
        on what it imports through ``imported`` (a function of its text and of
        ``imported``), kept with its stamp for each ``imported`` asked (a cycle's members
        are asked as their names grow): a warm run asks without parsing the file."""
        facts = self.facts(path)
        root = project_root(os.path.dirname(path)) if self.persist else None
        if root is not None and root not in self._carried_loaded:
            self._carried_loaded.add(root)
            for key, value in self._read_table(root, "carried").items():
                valid = type(value) is tuple and len(value) == 2
                if isinstance(key, str) and valid and isinstance(value[1], dict):
                    self._carried.setdefault(key, value)
        stamp = facts.stamp if facts is not None else None
        known = self._carried.get(path)
        if known is not None and known[0] == stamp:
            found = known[1].get(imported)
            if isinstance(found, frozenset):
                return found
        found = names()
        if stamp is not None:
            answers = known[1] if known is not None and known[0] == stamp else {}
            answers[imported] = found
            self._carried[path] = (stamp, answers)
            if root is not None:
                self._carried_dirty.add(root)
        return found

    def mentioning(self, roots: tuple[str, ...], listing: dict[str, Stamp]) -> frozenset[str]:
        """The files of ``listing`` (every Python file under ``roots``, with its stamp as
        listed now) that mention external streams (their facts' ``external``). Kept per
        ``roots`` with the stamps: a warm run with nothing changed compares two tables; an
        edit reads only the files whose stamps changed (:func:`mentions_external`)."""
        table = project_root(roots[0]) if self.persist and roots else None
        if table is not None and table not in self._census_loaded:
            self._census_loaded.add(table)
            self._load_census(table)
        stamps, found = self._census.get(roots, ({}, frozenset()))
        if listing.items() <= stamps.items():
            return found if len(stamps) == len(listing) else found.intersection(listing)
        mentioning = set()
        kept = dict(listing)
        for path, stamp in listing.items():
            if stamps.get(path) == stamp:
                if path in found:
                    mentioning.add(path)
                continue
            try:
                data = read_project_file(path)
                if mentions_external(data):
                    mentioning.add(path)
                if racy(stamp):  # an edit may keep this stamp: read again next time
                    kept[path] = kept_stamp(stamp, data)
            except OSError:  # as for the facts: a file that cannot be read hands out nothing
                del kept[path]  # now; the next run tries again (a chmod keeps the stamp)
        self._census[roots] = (kept, frozenset(mentioning))
        if table is not None:
            self._census_dirty.add(table)
        return frozenset(mentioning)

    @staticmethod
    def _valid(facts: FileFacts, path: str) -> bool:
        try:
            if not stamp_holds(path, facts.stamp):
                return False
            # Resolution depends on which paths exist, not on what they hold: an edit of an
            # imported module leaves its importers' facts as they were. Thousands of files
            # probe the same paths (a hub's): each is looked up once per run.
            exists = run_memo("probe-exists", dict)
            for probe, stamp in facts.probes:
                known = exists.get(probe) if exists is not None else None
                if known is None:
                    known = stamp_of(probe) is not None
                    if exists is not None:
                        exists[probe] = known
                if known != (stamp is not None):
                    return False
            return True
        except Exception:  # a damaged entry from the disk table: recomputed
            return False

    # --- the disk table -----------------------------------------------------------------

    def _load(self, path: str) -> None:
        """Read the disk table of ``path``'s project once per process (if persisting)."""
        if not self.persist:
            return
        root = project_root(os.path.dirname(path))
        if root is None or root in self._loaded:
            return
        self._loaded.add(root)
        for key, value in self._read_table(root).items():
            if isinstance(key, str) and type(value) is tuple and len(value) == 8:
                self._facts.setdefault(key, FileFacts(*value))

    def save(self) -> None:
        """Write the facts learnt to each project's table, merged with what another process
        wrote meanwhile (ours are newer). Errors mean no cache, never a failure."""
        for root in sorted(self._dirty):
            prefix = root + os.sep
            table = self._read_table(root)
            for path, facts in self._facts.items():
                if path.startswith(prefix):
                    table[path] = tuple(facts)
            for path in _gone(table):  # a deleted file's entry would be kept forever
                del table[path]
                self._facts.pop(path, None)
            self._write_table(root, "imports", _shared(table))
        self._dirty.clear()
        for root in sorted(self._spelled_dirty):
            prefix = root + os.sep
            names: dict[frozenset[str], frozenset[str]] = {}  # stored once, as in _shared
            kept = {
                p: (stamp, names.setdefault(asked, asked), names.setdefault(found, found))
                for p, (stamp, asked, found) in self._spelled.items()
                if p.startswith(prefix)
            }
            for path in _gone(kept):
                del kept[path]
                self._spelled.pop(path, None)
            self._write_table(root, "spelled", kept)
        self._spelled_dirty.clear()
        for root in sorted(self._carried_dirty):
            prefix = root + os.sep
            carried = {p: a for p, a in self._carried.items() if p.startswith(prefix)}
            for path in _gone(carried):
                del carried[path]
                self._carried.pop(path, None)
            self._write_table(root, "carried", carried)
        self._carried_dirty.clear()
        for root in sorted(self._census_dirty):
            kept = {r: e for r, e in self._census.items() if r and project_root(r[0]) == root}
            self._write_table(root, "census", kept)
        self._census_dirty.clear()

    def save_at_exit(self) -> None:
        """Save what was learnt when the process exits (once per process): flake8 has no
        end-of-run hook, and an editor's next run on save then reads the facts of the
        file's import closure from the table instead of every file of it. Only with
        ``persist``; flake8's worker processes end without running it (their facts are
        simply not kept)."""
        if self.persist and not self._saving:
            import atexit

            self._saving = True
            atexit.register(self.save)

    def _load_spelled(self, root: str) -> None:
        for key, value in self._read_table(root, "spelled").items():
            valid = type(value) is tuple and len(value) == 3
            if isinstance(key, str) and valid and isinstance(value[2], frozenset):
                self._spelled.setdefault(key, value)

    def _load_census(self, root: str) -> None:
        for key, value in self._read_table(root, "census").items():
            valid = type(value) is tuple and len(value) == 2 and isinstance(value[0], dict)
            if isinstance(key, tuple) and valid and isinstance(value[1], frozenset):
                self._census.setdefault(key, value)

    def _read_table(self, root: str, kind: str = "imports") -> dict:
        """One of ``root``'s tables; empty if it is missing, corrupt or foreign."""
        try:
            table = load(self._table(root, kind))
        except Exception:  # start afresh
            return {}
        return table if isinstance(table, dict) else {}

    def _write_table(self, root: str, kind: str, table: dict) -> None:
        try:
            store(self._table(root, kind), table)
        except Exception:  # read-only tree, full disk: just no cache
            return

    def _table(self, root: str, kind: str = "imports") -> str:
        """One table per project and configured roots (the facts depend on both)."""
        return os.path.join(entry_directory(root), f"{kind}-{_roots_key(self.src)}.pickle")


#: :func:`_roots_key` of no configured roots, the common case: the digest of nothing.
_NO_ROOTS = "da39a3ee5e6b4b0d"


def _gone(table: dict[str, object]) -> list[str]:
    """The files of ``table`` that no longer exist. Asked only when the table is written
    anyway (a stat per entry beside pickling every entry): the tables of a project whose
    files come and go (3,000 created and deleted grew them by 263 KB) hold its live files."""
    return [path for path in table if not os.path.lexists(path)]


def _roots_key(src: tuple[str, ...]) -> str:
    """Names the tables of one set of configured roots (made absolute on each call: the
    working directory may change). hashlib (OpenSSL, 2.5 ms to import) only when some
    are configured: flake8 runs this on every file it hands the plugin."""
    if not src:
        return _NO_ROOTS
    import hashlib

    key = "\0".join(os.path.abspath(r) for r in src).encode("utf-8", "surrogatepass")
    return hashlib.sha1(key).hexdigest()[:16]


def _shared(table: dict[str, tuple]) -> dict[str, tuple]:
    """The table with each path and probe stored once: pickle keeps one copy of an object
    it meets again, not of an equal one, and thousands of files probe and link the same
    paths (a hub's). On transformers this made the table several times smaller, and its
    load (every run) as much faster."""
    paths: dict[object, object] = {}

    def one(value: object) -> object:
        return paths.setdefault(value, value)

    out = {}
    for path, value in table.items():
        try:
            stamp, external, refers, links, probes, strong, whole, transfer = value
            probes = tuple(one((one(p), s)) for p, s in probes)
            links, whole = tuple(one(p) for p in links), tuple(one(p) for p in whole)
            out[path] = (stamp, external, refers, links, probes, strong, whole, transfer)
        except (TypeError, ValueError):  # a damaged entry: dropped, computed again
            continue
    return out


def mentions_external(data: bytes) -> bool:
    """:func:`.markers.might_use_external_streams` of the file whose bytes are ``data``, as
    its facts would say. Without a coding cookie a source file is UTF-8 (or, undecodable,
    latin-1), where an ASCII word is the same bytes: a file without the markers' bytes is
    answered without decoding it."""
    markers = b"ExternalStream" in data or b"stream_ptr" in data or b"transfer_to_npu" in data
    if not markers and b"coding" not in _first_two_lines(data):
        return False  # no cookie where PEP 263 puts it: UTF-8 or latin-1
    return hands_out_external(decode(data))


def _first_two_lines(data: bytes) -> bytes:
    end = data.find(b"\n")
    if end != -1:
        end = data.find(b"\n", end + 1)
    return data if end == -1 else data[:end]


_SHARED: dict[tuple[tuple[str, ...], bool], SourceFacts] = {}


def source_facts(src: tuple[str, ...] = (), persist: bool = False) -> SourceFacts:
    """The process-wide facts for a set of configured roots (and disk cache or not)."""
    key = (src, persist)
    found = _SHARED.get(key)
    if found is None:
        found = _SHARED[key] = SourceFacts(src, persist)
    return found


def in_a_run() -> bool:
    return current_run() is not None
