"""Module resolution: which file of the project an import names.

Roots are found as mypy and pytest find them: from a file, walk up while the directory
holds an ``__init__.py``; the directory above the topmost package is a root (for a file
outside any package, its own directory is). Configured roots (``[tool.extstream-lint]
src = ["src"]``) are added. Installed packages are never analysed: a name that resolves
to no file under a root is not the project's (torch and torch_npu come from the contract).

No libcst here: it is only paths and strings, cheap enough for the pre-filter.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Generator, Iterator

from .diskio import entry_directory, load, store

#: (size, mtime in ns) of a file: what invalidates anything computed from it.
Stamp = tuple[int, int]
#: Paths looked at to resolve an import, with their stamps (``None``: no such file).
Probes = tuple[tuple[str, "Stamp | None"], ...]

#: Known from the contract table (or irrelevant), never analysed as project code.
NEVER_PROJECT = frozenset({"torch", "torch_npu", "__future__", "typing", "contextlib"})


# --- what the file system says, memoised for one run at most ------------------------------


class _Run:
    """What one run learnt about the file system: every ``stat`` and module lookup.

    Files do not change while one run reads them (every linter assumes it), so inside
    :func:`one_run` each path is looked at once. Outside (flake8 and editors calling the
    plugin in a long-lived process, tests), nothing is remembered across calls: a module
    that appears or changes between two lint calls is seen by the second.
    """

    def __init__(self) -> None:
        self.stats: dict[str, os.stat_result | None] = {}
        self.modules: dict[tuple[str, tuple[str, ...]], tuple[str | None, Probes]] = {}
        self.roots: dict[str, str] = {}


_RUN: _Run | None = None


@contextlib.contextmanager
def one_run() -> Iterator[None]:
    """Remember ``stat`` results and module lookups until the block ends (the CLI's run)."""
    global _RUN
    outer = _RUN
    if outer is None:
        _RUN = _Run()
    try:
        yield
    finally:
        _RUN = outer


def _stat(path: str) -> os.stat_result | None:
    run = _RUN
    if run is not None:
        try:
            return run.stats[path]
        except KeyError:
            pass
    try:
        info: os.stat_result | None = os.stat(path)
    except (OSError, ValueError):
        info = None
    if run is not None:
        run.stats[path] = info
    return info


def stamp_of(path: str) -> Stamp | None:
    info = _stat(path)
    return None if info is None else _stamp(info)


def _stamp(info: os.stat_result) -> Stamp:
    return info.st_size, info.st_mtime_ns


def _is_file(path: str) -> bool:
    info = _stat(path)
    return info is not None and stat.S_ISREG(info.st_mode)


def package_root(directory: str) -> str:
    """The import root of a file in ``directory`` (absolute): above its topmost package."""
    run = _RUN
    if run is not None and directory in run.roots:
        return run.roots[directory]
    current = directory
    while _is_file(os.path.join(current, "__init__.py")):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if run is not None:
        run.roots[directory] = current
    return current


def module_name(path: str, roots: tuple[str, ...]) -> str | None:
    """The dotted name of the file ``path`` under one of ``roots`` (``pkg.streams``).

    A prefix test on absolute paths rather than ``os.path.relpath``: this runs for every
    file the pre-filter reads, and ``relpath`` costs several times more.
    """
    path = os.path.abspath(path)
    for root in roots:
        prefix = root if root.endswith(os.sep) else root + os.sep
        if not path.startswith(prefix):
            continue
        relative = path[len(prefix) :]
        parts = relative[: -len(".py")].split(os.sep) if relative.endswith(".py") else []
        if not parts or not all(p.isidentifier() for p in parts):
            continue
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts) if parts else None
    return None


def roots_for(path: str, configured: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Import roots for a file: its package root first, then the configured ones.

    Configured roots are made absolute on each call: the cwd may change between calls.
    """
    roots = [package_root(os.path.dirname(os.path.abspath(path)))]
    for root in configured:
        absolute = os.path.abspath(root)
        if absolute not in roots:
            roots.append(absolute)
    return tuple(roots)


def find_module(name: str, roots: tuple[str, ...]) -> str | None:
    """The file of module ``name`` under ``roots``: ``a/b.py`` or ``a/b/__init__.py``."""
    return locate_module(name, roots)[0]


def locate_module(name: str, roots: tuple[str, ...]) -> tuple[str | None, Probes]:
    """:func:`find_module`, with every path it looked at and its stamp (``None``: absent).

    The probes are what the answer depends on: a module that appears later (a new
    ``a/b.py`` before the one found, or where none was) changes one of them, so anything
    computed from the answer and keyed by them is invalidated exactly.
    """
    run = _RUN
    key = (name, roots)
    if run is not None and key in run.modules:
        return run.modules[key]
    found: str | None = None
    probes: list[tuple[str, Stamp | None]] = []
    if name:
        parts = name.split(".")
        for root in roots:
            if installed(root):
                continue
            base = os.path.join(root, *parts)
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                info = _stat(candidate)
                probes.append((candidate, None if info is None else _stamp(info)))
                if info is not None and stat.S_ISREG(info.st_mode):
                    found = candidate
                    break
            if found is not None:
                break
    answer = (found, tuple(probes))
    if run is not None:
        run.modules[key] = answer
    return answer


def namespace_package(name: str, roots: tuple[str, ...]) -> bool:
    """``name`` is a directory without ``__init__.py`` under a project root (PEP 420): its
    submodules import as ``name.sub``. Call it only where :func:`find_module` found nothing."""
    return _locate_namespace(name, roots)[0]


def _locate_namespace(name: str, roots: tuple[str, ...]) -> tuple[bool, Probes]:
    """:func:`namespace_package`, with the directories looked at and their stamps (a
    directory's stamp changes when a submodule appears in it)."""
    if not name:
        return False, ()
    probes: list[tuple[str, Stamp | None]] = []
    found = False
    for root in roots:
        if installed(root):
            continue
        directory = os.path.join(root, *name.split("."))
        info = _stat(directory)
        probes.append((directory, None if info is None else _stamp(info)))
        found = found or (info is not None and stat.S_ISDIR(info.st_mode))
    return found, tuple(probes)


def installed(directory: str) -> bool:
    """Under ``site-packages``/``dist-packages``: installed code, never the project's."""
    parts = directory.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts


def absolute_name(module: str | None, level: int, importer: str | None, is_package: bool) -> str:
    """``from ..x import y`` in module ``importer``: the absolute name of ``..x``."""
    if level == 0:
        return module or ""
    parts = importer.split(".") if importer else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    if module:
        parts.append(module)
    return ".".join(parts)


# Anchored on a newline (a literal) rather than ``^`` with re.M: several times faster. The
# names of a ``from`` import are kept as written (parsed only when the module is a package).
_IMPORT = re.compile(
    r"\n[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import\b[ \t]*(\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+([\w.][\w. \t,]*))"
)

#: (level, module, is it a plain ``import``, the names a ``from`` import binds as written)
Import = tuple[int, str, bool, str]


def imported_names(text: str) -> list[Import]:
    """Every import statement of ``text``, by a regex (``import a, b`` gives two)."""
    found: list[Import] = []
    for match in _IMPORT.finditer("\n" + text if text.startswith(("from", "import")) else text):
        dots, module, names, plain = match.groups()
        if plain is None:
            found.append((len(dots), module, False, names))
            continue
        for part in plain.split(","):
            words = part.split()
            if words:
                found.append((0, words[0], True, ""))
    return found


def _bound_names(names: str) -> list[str]:
    """``b, c as d`` or ``(b,\n c)`` of ``from a import ...``: ``["b", "c"]``."""
    out = []
    for part in names.strip("()").split(","):
        words = part.split()
        if words and words[0].isidentifier():
            out.append(words[0])
    return out


class Verdict(tuple):
    """The pre-filter's answer for one project file, and everything it depended on.

    A plain tuple (fast to pickle for the disk cache): the file's stamp, the answer (it
    mentions external streams, or imports a module that may hand them out), the paths
    looked at to resolve its imports with their stamps, and the project files whose own
    verdict it used. Valid while all of those are unchanged, transitively.
    """

    __slots__ = ()

    def __new__(cls, stamp: Stamp, flag: bool, probes: Probes, links: tuple[str, ...]) -> Verdict:
        return tuple.__new__(cls, (stamp, flag, probes, links))

    stamp = property(lambda self: self[0])
    flag = property(lambda self: self[1])
    probes = property(lambda self: self[2])
    links = property(lambda self: self[3])


_UNKNOWN = 1 << 30  # no file in progress was met: a verdict that is final


class _Frame:
    """One file being searched: its import steps and the lowest file in progress met."""

    __slots__ = ("low", "mark", "path", "stamp", "steps")

    def __init__(self, path: str, stamp: Stamp | None, steps: Generator) -> None:
        self.path = path
        self.stamp = stamp  # None: a text handed in, not a file of the search
        self.steps = steps
        self.low = _UNKNOWN
        self.mark = 0


class ExternalImports:
    """The widened pre-filter: does a file import a project module that may hand it an
    external stream (a module mentioning one, or importing such a module, transitively)?

    Text only: projects that never use ExternalStream pay a regex and a few ``stat`` calls
    per import, never a parse. Each file's verdict is kept with what it depended on
    (:class:`Verdict`) and checked by stamps before use, so an edit, or a module that
    appears, anywhere below a file changes its verdict exactly. With ``persist``, verdicts
    are also kept in ``.extstream_cache/``: a warm run neither reads nor scans an
    unchanged file that does not need the analysis (:meth:`known_verdict`).
    """

    def __init__(self, src: tuple[str, ...] = (), persist: bool = False) -> None:
        self.src = src
        self.persist = persist
        self._verdicts: dict[str, Verdict] = {}
        #: Verdicts checked in the current run (:func:`one_run`), with that run.
        self._checked: set[str] = set()
        self._checked_in: _Run | None = None
        #: Project roots whose table was loaded from disk / has verdicts to write.
        self._loaded: set[str] = set()
        self._dirty: set[str] = set()

    # --- the questions -------------------------------------------------------------------

    def imports_external(self, text: str, path: str) -> bool:
        """For the file ``path`` whose text is ``text`` (maybe not what is on disk: stdin)."""
        if not path or path.startswith("<") or path in ("-", "stdin"):
            return False
        path = os.path.abspath(path)
        if installed(os.path.dirname(path)):
            # Installed code imports installed code, never analysed: the markers decide
            # (saves walking up for its package root on every file of site-packages).
            return False
        self._load(path)
        return self._search(path, text)[0]

    def file_may_export(self, path: str, roots: tuple[str, ...] = ()) -> bool:
        """Whether a project file mentions external streams or imports one that does."""
        known = self.known_verdict(path)
        return known if known is not None else self._search(os.path.abspath(path), None)[0]

    def known_verdict(self, path: str) -> bool | None:
        """The stored answer for the file ``path`` as it is on disk, if still valid; ``None``
        if it must be read (then :meth:`file_verdict`). Costs a few ``stat`` calls."""
        path = os.path.abspath(path)
        self._load(path)
        verdict = self._verdicts.get(path)
        if verdict is None or not self._valid(path):
            return None
        return verdict.flag

    def file_verdict(self, path: str, text: str, markers: bool) -> bool:
        """The answer for the file ``path`` read as ``text`` (``markers``: the text test
        said yes), kept for the next run. Within :func:`one_run` the stamp is the one taken
        by :meth:`known_verdict` before reading: a file changed in between gets a stamp
        older than its text, so the next run looks again."""
        path = os.path.abspath(path)
        stamp = stamp_of(path)
        if markers:
            if stamp is not None:
                self._keep(path, Verdict(stamp, True, (), ()))
            return True
        self._load(path)
        flag, probes, links = self._search(path, text)
        if stamp is not None:
            self._keep(path, Verdict(stamp, flag, probes, links))
        return flag

    def dependencies(self, path: str) -> dict[str, Stamp | None]:
        """Every path ``path``'s verdict depended on, transitively, with its stamp."""
        path = os.path.abspath(path)
        out: dict[str, Stamp | None] = {}
        stack = [path]
        seen = {path}
        while stack:
            verdict = self._verdicts.get(stack.pop())
            if verdict is None:
                continue
            out.update(verdict.probes)
            for link in verdict.links:
                if link not in seen:
                    seen.add(link)
                    stack.append(link)
        for link in seen:
            out[link] = stamp_of(link)
        return out

    # --- computing -----------------------------------------------------------------------

    def _search(self, path: str, text: str | None) -> tuple[bool, Probes, tuple[str, ...]]:
        """The answer for ``path`` (read from disk if ``text`` is None), with its probes
        and links; verdicts of every project file met on the way are kept.

        A depth-first search with an explicit stack (import chains can be longer than
        Python's recursion allows), Tarjan's way for cycles: a file that meets a file still
        in progress gets "no" for it, and its own "no" is final only once the head of its
        cycle finishes with "no" (nothing reachable from any of them mentions external
        streams). A "yes" is always final.
        """
        busy: dict[str, int] = {}  # files in progress: their position on the stack
        stack: list[_Frame] = []
        root = self._frame(path, text)
        if isinstance(root, bool):
            return root, (), ()
        pending: list[tuple[str, Verdict]] = []  # "no" verdicts waiting for their cycle
        stack.append(root)
        if text is None:
            busy[path] = 0
        answer: bool | None = None
        result: tuple[bool, Probes, tuple[str, ...]] = (False, (), ())
        while stack:
            frame = stack[-1]
            try:
                link = frame.steps.send(answer)
            except StopIteration as stop:
                stack.pop()
                flag, probes, links = stop.value
                position = len(stack)
                busy.pop(frame.path, None)
                if frame.stamp is not None:
                    verdict = Verdict(frame.stamp, flag, probes, links)
                    if flag or frame.low >= position:
                        self._keep(frame.path, verdict)
                        if not flag:
                            for member, waiting in pending[frame.mark :]:
                                self._keep(member, waiting)
                        del pending[frame.mark :]
                    else:
                        pending.append((frame.path, verdict))
                if stack:
                    stack[-1].low = min(stack[-1].low, frame.low if not flag else _UNKNOWN)
                else:
                    result = (flag, probes, links)
                answer = flag
                continue
            verdict = self._verdicts.get(link)
            if verdict is not None and self._valid(link):
                answer = verdict.flag
            elif link in busy:  # an import cycle: "no" for now
                answer = False
                frame.low = min(frame.low, busy[link])
            else:
                inner = self._frame(link, None)
                if isinstance(inner, bool):
                    answer = inner
                    continue
                inner.mark = len(pending)
                busy[link] = len(stack)
                stack.append(inner)
                answer = None
        return result

    def _frame(self, path: str, text: str | None) -> _Frame | bool:
        """The search step for one file; a plain answer when it needs no search (it
        mentions external streams, or cannot be read)."""
        stamp = stamp_of(path)
        if text is None:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                return False
            from .prefilter import might_use_external_streams

            if might_use_external_streams(text):
                if stamp is not None:
                    self._keep(path, Verdict(stamp, True, (), ()))
                return True
            # Only a file read here is a node of the search: a text handed in (stdin,
            # an editor's buffer) may differ from the file, which is a node of its own.
        else:
            stamp = None
        return _Frame(path, stamp, self._steps(text, path, roots_for(path, self.src)))

    def _steps(
        self, text: str, path: str, roots: tuple[str, ...]
    ) -> Generator[str, bool | None, tuple[bool, Probes, tuple[str, ...]]]:
        """Yields each project file an import of ``text`` (the file ``path``) may run and
        is sent back its answer; returns the file's answer, probes and links.

        ``import a.b`` binds ``a``: every package on the way counts. ``from a.b import c``
        binds names of ``a.b``, or its submodule ``a.b.c`` when ``a.b`` is a package.
        The file's own dotted name only matters to relative imports: most files have
        none, and this runs on every file of the project, so it is computed only then.
        """
        imports = imported_names(text)
        importer: str | None = None
        if any(level for level, _, _, _ in imports):
            importer = module_name(path, roots)
        is_package = os.path.basename(path) == "__init__.py"
        probes: list[tuple[str, Stamp | None]] = []
        links: list[str] = []
        for level, name, plain, names in imports:
            full = absolute_name(name, level, importer, is_package)
            if not full or full.split(".", 1)[0] in NEVER_PROJECT:
                continue
            for found in _imported_files(full, plain, names, roots, probes):
                links.append(found)
                if (yield found):
                    return True, tuple(probes), tuple(links)
        return False, tuple(probes), tuple(links)

    # --- checking, keeping ----------------------------------------------------------------

    def _valid(self, path: str) -> bool:
        """Whether ``path``'s verdict still holds: its stamps and those of every verdict it
        used, transitively (an iterative walk: chains of imports can be long). Within one
        run a path checked once stays checked."""
        run = _RUN
        if run is not None and self._checked_in is run:
            if path in self._checked:
                return True
        else:
            self._checked = set()
            self._checked_in = run
        stack = [path]
        seen = {path}
        try:
            while stack:
                current = stack.pop()
                if current in self._checked:
                    continue
                verdict = self._verdicts.get(current)
                if verdict is None or stamp_of(current) != verdict.stamp:
                    return False
                for probe, stamp in verdict.probes:
                    if stamp_of(probe) != stamp:
                        return False
                for link in verdict.links:
                    if link not in seen:
                        seen.add(link)
                        stack.append(link)
        except Exception:  # a damaged entry from the disk table: not valid, recomputed
            return False
        if run is not None:
            self._checked |= seen
        return True

    def _keep(self, path: str, verdict: Verdict) -> None:
        self._verdicts[path] = verdict
        if self.persist:
            root = _cache_root(path)
            if root is not None:
                self._dirty.add(root)

    def _load(self, path: str) -> None:
        """Read the disk table of ``path``'s project once per process (if persisting)."""
        if not self.persist:
            return
        root = _cache_root(path)
        if root is None or root in self._loaded:
            return
        self._loaded.add(root)
        try:
            table = load(self._table(root))
        except Exception:  # missing, corrupt, foreign: start afresh
            return
        if not isinstance(table, dict):
            return
        for key, value in table.items():
            if (
                isinstance(key, str)
                and type(value) is tuple
                and len(value) == 4
                and key not in self._verdicts
            ):
                self._verdicts[key] = Verdict(*value)

    def save(self) -> None:
        """Write the verdicts learnt to each project's table, merged with what another
        process wrote meanwhile (ours are newer). Errors mean no cache, never a failure."""
        for root in sorted(self._dirty):
            location = self._table(root)
            prefix = root + os.sep
            try:
                try:
                    table = load(location)
                except Exception:
                    table = {}
                if not isinstance(table, dict):
                    table = {}
                for path, verdict in self._verdicts.items():
                    if path.startswith(prefix):
                        table[path] = tuple(verdict)
                store(location, table)
            except Exception:  # read-only tree, full disk: just no cache
                continue
        self._dirty.clear()

    def _table(self, root: str) -> str:
        """One table per project and configured roots (verdicts depend on both)."""
        import hashlib

        key = "\0".join(os.path.abspath(r) for r in self.src).encode("utf-8", "surrogatepass")
        name = f"prefilter-{hashlib.sha1(key).hexdigest()[:16]}.pickle"
        return os.path.join(entry_directory(root), name)


def _candidates(name: str, plain: bool) -> Iterator[str]:
    """The modules an import may run: ``a.b`` then, for ``import a.b``, ``a``."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        yield ".".join(parts[:end])
        if not plain:
            return


def _imported_files(
    full: str,
    plain: bool,
    names: str,
    roots: tuple[str, ...],
    probes: list[tuple[str, Stamp | None]],
) -> Iterator[str]:
    """The project files (absolute) an import of ``full`` may run, lazily (the search
    stops at the first "yes"); every path looked at is added to ``probes``."""
    for module in _candidates(full, plain):
        found, looked = locate_module(module, roots)
        probes.extend(looked)
        if found is not None:
            yield os.path.abspath(found)
        if plain or not names:
            continue
        if found is None:  # a namespace package (no __init__.py) has submodules too
            namespace, looked = _locate_namespace(module, roots)
            probes.extend(looked)
            if not namespace:
                continue
        elif os.path.basename(found) != "__init__.py":
            continue
        for bound in _bound_names(names):  # from a.b import c: maybe the submodule a.b.c
            sub, looked = locate_module(f"{module}.{bound}", roots)
            probes.extend(looked)
            if sub is not None:
                yield os.path.abspath(sub)


def _cache_root(path: str) -> str | None:
    from .diskio import project_root

    return project_root(os.path.dirname(path))


_SHARED: dict[tuple[tuple[str, ...], bool], ExternalImports] = {}


def external_imports(src: tuple[str, ...] = (), persist: bool = False) -> ExternalImports:
    """The process-wide memo for a set of configured roots (and disk cache or not)."""
    key = (src, persist)
    found = _SHARED.get(key)
    if found is None:
        found = _SHARED[key] = ExternalImports(src, persist)
    return found


# --- the index's wider question: may a module matter to a file that has an external stream?


def _refused_call() -> re.Pattern[str]:
    """A call of a method the contract refuses on some stream, event, graph or work."""
    from .contract import APIS  # pure data

    methods = sorted({api.attr for api in APIS if api.method and api.code is not None})
    return re.compile(r"\.(?:" + "|".join(methods) + r")\s*\(")


_REFUSED_CALL: re.Pattern[str] | None = None
#: Spellings of every torch_npu, distributed and accelerator name of the contract table.
_TORCH_MARKERS = ("npu", "distributed", "accelerator", "torch.Event", "torch.Stream")


def may_reach_refused(text: str) -> bool:
    """Whether a module may hold a helper that reaches a refused operation (a sink) or a
    handle for one: it spells a torch_npu / distributed name or calls a refused method name.
    Text only and generous: it decides which plain modules the index follows, not findings."""
    global _REFUSED_CALL
    if any(marker in text for marker in _TORCH_MARKERS):
        return True
    if _REFUSED_CALL is None:
        _REFUSED_CALL = _refused_call()
    return _REFUSED_CALL.search(text) is not None


_FACTS: dict[tuple[str, tuple[str, ...]], tuple[Stamp, bool, tuple[str, ...]]] = {}


def file_may_matter(path: str, roots: tuple[str, ...], reached: dict[str, Stamp]) -> bool:
    """Whether the project file ``path``, or one it imports (transitively), may hold a
    helper reaching a refused operation: the index follows such a module even when it
    hands out no external stream (helpers -> mid -> low: ``s.synchronize()``).
    ``reached`` receives the stamp of every file the answer was read from: a "no" must be
    revisited when any of them changes. A walk over per-file facts (stamp, own text test,
    imported files), so a change anywhere down the chain is seen; cycles end the walk.
    """
    stack = [os.path.abspath(path)]
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        facts = _facts_of(current, roots)
        if facts is None:
            continue
        stamp, local, imports = facts
        reached[current] = stamp
        if local:
            return True
        stack.extend(imports)
    return False


def _facts_of(path: str, roots: tuple[str, ...]) -> tuple[Stamp, bool, tuple[str, ...]] | None:
    """(stamp, may it matter by its own text, the project files it imports)."""
    stamp = stamp_of(path)
    if stamp is None:
        return None
    known = _FACTS.get((path, roots))
    if known is not None and known[0] == stamp:
        return known
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    from .prefilter import might_use_external_streams

    local = might_use_external_streams(text) or may_reach_refused(text)
    imports = () if local else tuple(_import_paths(text, path, roots))
    facts = _FACTS[(path, roots)] = (stamp, local, imports)
    return facts


def _import_paths(text: str, path: str, roots: tuple[str, ...]) -> list[str]:
    """The project files ``text`` (the file ``path``) imports, as the interpreter follows
    them: packages on the way of ``import a.b``, submodules of ``from a import b``."""
    found: list[str] = []
    imports = imported_names(text)
    importer = module_name(path, roots) if any(i[0] for i in imports) else None
    is_package = os.path.basename(path) == "__init__.py"
    for level, name, plain, names in imports:
        full = absolute_name(name, level, importer, is_package)
        if not full or full.split(".", 1)[0] in NEVER_PROJECT:
            continue
        parts = full.split(".")
        wanted = [".".join(parts[:end]) for end in range(1, len(parts) + 1)] if plain else [full]
        if not plain:
            wanted.extend(f"{full}.{sub}" for sub in _bound_names(names))
        for module in wanted:
            file = find_module(module, roots)
            if file is not None:
                found.append(os.path.abspath(file))
    return found
