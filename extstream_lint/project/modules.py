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
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

#: What invalidates anything computed from a file: (size, mtime, ctime in ns, inode), as
#: git's index keeps them: ``cp -p``, ``rsync -t`` or ``tar x`` can put an edited file back
#: at its old size and mtime, never at its old ctime and inode. A stamp taken while the file
#: was "racily clean" (:func:`racy`) carries a fifth field, a digest of the bytes read.
Stamp = tuple
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
        #: When the run began: every ``stat`` of it came later (see :func:`racy`).
        self.started = time.time_ns()
        self.stats: dict[str, os.stat_result | None] = {}
        self.modules: dict[tuple[str, tuple[str, ...]], Resolved] = {}
        self.roots: dict[str, str] = {}
        #: ruff's default roots of the project above a directory (:func:`roots_for`).
        self.default_roots: dict[str, tuple[str, ...]] = {}
        #: What the layers above learn for the length of the run (texts read, parsed trees,
        #: import components), by layer: forgotten with the run, so nothing goes stale.
        self.memo: dict[str, object] = {}


_RUN: _Run | None = None


@contextlib.contextmanager
def one_run(run: _Run | None = None) -> Iterator[None]:
    """Remember ``stat`` results and module lookups until the block ends (the CLI's run).

    Inside a run already in progress, the block joins it. ``run``: the state of a run that
    outlives this block (flake8's, see :func:`new_run`), resumed for it.
    """
    global _RUN
    outer = _RUN
    if outer is None:
        _RUN = run if run is not None else _Run()
    try:
        yield
    finally:
        _RUN = outer


def new_run() -> _Run:
    """The state of a run whose files are checked one call at a time, resumed by
    :func:`one_run` for each: flake8 gives plugins no end-of-run hook, only a start (option
    parsing, once per flake8 run and worker process). Files do not change while flake8 reads
    them, so what one file's lint learnt serves the next; outside those calls nothing of it
    is active, so other callers in the same process (an editor, the CLI, tests) never see
    its stale ``stat`` results."""
    return _Run()


def current_run() -> _Run | None:
    """The run in progress, if any (see :func:`one_run`)."""
    return _RUN


def run_memo(layer: str, make: Callable[[], T]) -> T | None:
    """The object ``layer`` keeps for the current run (made on first use); ``None`` outside
    a run, where nothing may be remembered."""
    run = _RUN
    if run is None:
        return None
    found = run.memo.get(layer)
    if found is None:
        found = run.memo[layer] = make()
    return found  # type: ignore[return-value]


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


def stamp_from(info: os.stat_result) -> Stamp:
    """The stamp of a file whose ``stat`` the caller has (a directory listing's)."""
    return _stamp(info)


def _stamp(info: os.stat_result) -> Stamp:
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


#: How far before a ``stat`` an mtime must lie for the stat to tell every later edit apart:
#: file systems stamp with a coarse clock (a kernel tick: at most 10 ms on Linux; taken
#: with a margin), and some keep whole seconds (FAT: two).
_TICK_NS = 50_000_000
_COARSE_NS = 2_000_000_000


def racy(stamp: Stamp) -> bool:
    """Whether ``stamp`` was "racily clean" when taken (git's rule): its mtime is not older
    than the run that took it, less the file system's granularity, so an edit made just
    after the ``stat`` (or after the file was read) may keep the same mtime, size and
    ctime. Such a stamp proves nothing on its own: :func:`kept_stamp` adds a digest of the
    bytes read, which :func:`stamp_holds` compares."""
    run = _RUN
    taken = run.started if run is not None else time.time_ns()
    mtime = stamp[1]
    granularity = _COARSE_NS if mtime % 1_000_000_000 == 0 else _TICK_NS
    return mtime >= taken - granularity


def content_digest(data: bytes) -> str:
    """A digest of a file's bytes for a racily clean stamp (BLAKE2b: hashlib's own, without
    hashlib's OpenSSL import, which the pre-filter's path avoids)."""
    from .sealing import blake2b

    return blake2b(data, digest_size=16).hexdigest()


def kept_stamp(stamp: Stamp, data: bytes | None) -> Stamp:
    """The stamp to keep for a file whose bytes ``data`` (``None``: not at hand) were read
    with ``stamp``: itself, or, when racily clean, with the digest of those bytes (without
    them, a stamp that never holds: the file is read again next time)."""
    if not racy(stamp):
        return stamp
    return (*stamp[:4], content_digest(data) if data is not None else "unverified")


def stamp_holds(path: str, kept: Stamp | None) -> bool:
    """Whether the file ``path`` is still as it was when ``kept`` was taken: the same stat
    data and, for a racily clean stamp, the same bytes (read again: git's rule too)."""
    now = stamp_of(path)
    if now is None or kept is None or now[:4] != kept[:4]:
        return False
    if len(kept) == 4:
        return True
    from .regular import read_regular

    try:
        return content_digest(read_regular(path)) == kept[4]
    except OSError:
        return False


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
    """Import roots for a file: its package root first, then the configured ones, or
    without any, ruff's default ``src = [".", "src"]`` of the file's project root.

    So a ``src/`` layout with ``tests/`` beside it needs no configuration: a test's
    ``from pkg.helper import make_ext`` finds ``src/pkg/helper.py``. Configured roots
    replace the defaults, as in ruff, and are made absolute on each call: the cwd may
    change between calls.
    """
    directory = os.path.dirname(os.path.abspath(path))
    roots = [package_root(directory)]
    for root in configured or _default_roots(directory):
        absolute = os.path.abspath(root)
        if absolute not in roots:
            roots.append(absolute)
    return tuple(roots)


def _default_roots(directory: str) -> tuple[str, ...]:
    """ruff's default roots, ``.`` and ``src`` of the project root above ``directory``
    (the nearest directory with ``pyproject.toml``, ``setup.cfg`` or ``.git``); none
    outside a project or inside an installed package. Memoised per run with the package
    roots: every file of a directory asks the same."""
    run = _RUN
    if run is not None and directory in run.default_roots:
        return run.default_roots[directory]
    from .diskio import project_root

    top = project_root(directory)
    roots: tuple[str, ...] = ()
    if top is not None and not installed(top):
        source = os.path.join(top, "src")
        info = _stat(source)
        roots = (top, source) if info is not None and stat.S_ISDIR(info.st_mode) else (top,)
    if run is not None:
        run.default_roots[directory] = roots
    return roots


def find_module(name: str, roots: tuple[str, ...]) -> str | None:
    """The file of module ``name`` under ``roots`` (``a/b/__init__.py`` before ``a/b.py``,
    as Python imports it: :func:`_resolve`)."""
    return locate_module(name, roots)[0]


def locate_module(name: str, roots: tuple[str, ...]) -> tuple[str | None, Probes]:
    """:func:`find_module`, with every path it looked at and its stamp (``None``: absent).

    The probes are what the answer depends on: a module that appears later (a new
    ``a/b/__init__.py`` before the one found, or where none was) changes one of them, so
    anything computed from the answer and keyed by them is invalidated exactly.
    """
    kind, found, probes = _resolve(name, roots)
    return (found if kind == "file" else None), probes


def namespace_package(name: str, roots: tuple[str, ...]) -> bool:
    """``name`` is a directory without ``__init__.py`` under a project root (PEP 420): its
    submodules import as ``name.sub``. Call it only where :func:`find_module` found nothing."""
    return _locate_namespace(name, roots)[0]


def _locate_namespace(name: str, roots: tuple[str, ...]) -> tuple[bool, Probes]:
    """:func:`namespace_package`, with the paths looked at and their stamps (a directory's
    stamp changes when a submodule appears in it)."""
    kind, _, probes = _resolve(name, roots)
    return kind == "namespace", probes


#: (``"file"``, its path) of a module or regular package; (``"namespace"``, None); or
#: (None, None): not the project's. With the paths looked at.
Resolved = tuple["str | None", "str | None", Probes]


def _resolve(name: str, roots: tuple[str, ...]) -> Resolved:
    """Find ``name`` as Python's import system does (``importlib``'s ``PathFinder`` and
    ``FileFinder``), memoised for the run.

    Each part is looked for along its parent's search path: the roots, in order, for the
    first part; the package's own directory for a part under a regular package (a
    submodule is never taken from another root); the portions of a namespace package.
    In each directory of the path a package (``x/__init__.py``) comes before a module
    (``x.py``), and a directory without ``__init__.py`` is a namespace portion, which
    counts only when no directory of the whole path holds a package or module of that
    name (PEP 420: portions last).
    """
    run = _RUN
    key = (name, roots)
    if run is not None and key in run.modules:
        return run.modules[key]
    probes: list[tuple[str, Stamp | None]] = []

    def look(path: str) -> os.stat_result | None:
        info = _stat(path)
        probes.append((path, None if info is None else _stamp(info)))
        return info

    answer: tuple[str | None, str | None] = (None, None)
    search = [root for root in roots if not installed(root)] if name else []
    parts = name.split(".") if name else []
    for position, part in enumerate(parts):
        last = position == len(parts) - 1
        found: tuple[str, str] | None = None  # ("package" | "module", path)
        portions: list[str] = []
        for entry in search:
            base = os.path.join(entry, part)
            init = os.path.join(base, "__init__.py")
            info = look(init)
            if info is not None and stat.S_ISREG(info.st_mode):
                found = ("package", init)
                break
            info = look(base + ".py")
            if info is not None and stat.S_ISREG(info.st_mode):
                found = ("module", base + ".py")
                break
            info = look(base)
            if info is not None and stat.S_ISDIR(info.st_mode):
                portions.append(base)
        if found is not None:
            if last:
                answer = ("file", found[1])
            elif found[0] == "package":
                search = [os.path.dirname(found[1])]
                continue
            break  # a submodule of a plain module: none
        if not portions:
            break
        if last:
            answer = ("namespace", None)
        search = portions
    result = (*answer, tuple(probes))
    if run is not None:
        run.modules[key] = result  # type: ignore[assignment]
    return result  # type: ignore[return-value]


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


# The scan is linear in the text, whatever it holds (a string literal of 100,000 dots
# after ``from`` cost minutes once: two adjacent patterns that both took dots shared them
# out every way). Import statements are found by a pattern with nothing to share (a
# newline, the indentation, the keyword), and each is then read with ``str`` methods that
# look at each character of its line at most a few times; a parenthesised name list ends at
# the first ``)``, found once for the whole text (each unclosed ``(`` searching to the end
# would be quadratic again). ``SCANNED`` counts the characters read, for the tests.
_STATEMENT = re.compile(r"\n([ \t]*)(from|import)[ \t]")
_NAME_RUN = re.compile(r"[\w.]*")
_PLAIN_RUN = re.compile(r"[ \t]*([\w.][\w. \t,]*)")

#: Characters the import scan read (tests check it grows with the text, never faster).
SCANNED = [0]

#: (level, module, is it a plain ``import``, the names a ``from`` import binds as written,
#: is it at the top level: not indented, so run when the module is imported, unlike an
#: import inside a function, which real projects use to break import cycles)
Import = tuple[int, str, bool, str, bool]


def imported_names(text: str) -> list[Import]:
    """Every import statement of ``text``, read as a regex would but in linear time
    (``import a, b`` gives two)."""
    found: list[Import] = []
    if text.startswith(("from", "import")):
        text = "\n" + text
    closing = [-1]  # the first ``)`` at or after the last place one was looked for
    at = 0
    while True:
        match = _STATEMENT.search(text, at)
        if match is None:
            break
        indent, keyword = match.groups()
        top = not indent
        at = match.end()
        if keyword == "import":
            plain = _PLAIN_RUN.match(text, at)
            if plain is None:
                continue
            at = plain.end()
            SCANNED[0] += at - match.start()
            for part in plain.group(1).split(","):
                words = part.split()
                if words:
                    found.append((0, words[0], True, "", top))
            continue
        statement = _from_statement(text, at, closing)
        if statement is None:
            continue
        level, module, names, at = statement
        found.append((level, module, False, names, top))
    if "import_module" in text or "__import__" in text:
        # ``importlib.import_module("a.b")`` / ``__import__("a.b")``: ``import a.b`` by call
        for match in _IMPORT_CALL.finditer(text):
            found.append((0, match.group(2), True, "", False))
        if _NAMED_CALL.search(text):  # ``import_module(_PLUGINS[name])``: the table's names
            for match in _TABLE_NAME.finditer(text):
                found.append((0, match.group(2), True, "", False))
    return found


def _from_statement(text: str, at: int, closing: list[int]) -> tuple[int, str, str, int] | None:
    """``from`` read up to ``at`` (and a blank): its level, module, the names it binds as
    written, and where it ends; ``None`` when it is not an import (``from`` in prose)."""
    line_end = text.find("\n", at)
    if line_end < 0:
        line_end = len(text)
    SCANNED[0] += line_end - at
    line = text[at:line_end].lstrip(" \t")
    name = line.lstrip(".")
    level = len(line) - len(name)
    module = _NAME_RUN.match(name).group()  # type: ignore[union-attr]  # always matches
    rest = name[len(module) :]
    after = rest.lstrip(" \t")
    if len(after) == len(rest) or not after.startswith("import"):
        return None
    if len(after) > 6 and (after[6].isalnum() or after[6] == "_"):
        return None  # ``importer``: not the keyword
    names = after[6:].lstrip(" \t")
    start = line_end - len(names)
    if names.startswith("("):
        if closing[0] < start:
            closing[0] = text.find(")", start)
            SCANNED[0] += (closing[0] if closing[0] >= 0 else len(text)) - start
            if closing[0] < 0:
                closing[0] = len(text)  # none left: no later search either
        if closing[0] < len(text):
            return level, module, text[start : closing[0] + 1], closing[0] + 1
    cut = len(names)
    for stop in "#;":
        found = names.find(stop)
        if 0 <= found < cut:
            cut = found
    return level, module, names[:cut], start + cut


#: A call that imports a module named by a string literal (absolute names only).
_IMPORT_CALL = re.compile(r"\b(?:import_module|__import__)\(\s*(['\"])([\w.]+)\1")


#: A call that imports a module named by a variable or an element (not a literal).
_NAMED_CALL = re.compile(r"\b(?:import_module|__import__)\(\s*[A-Za-z_]")
#: A dotted module name stored under a string key (``"acl": "pkg.plugins.acl"``): a plugin
#: table an ``import_module`` of a variable may read.
_TABLE_NAME = re.compile(r"['\"][\w.]+['\"]\s*:\s*(['\"])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\1")


def _bound_names(names: str) -> list[str]:
    """``b, c as d`` or ``(b,\n c)`` of ``from a import ...``: ``["b", "c"]``."""
    out = []
    for part in names.strip("()").split(","):
        words = part.split()
        if words and words[0].isidentifier():
            out.append(words[0])
    return out


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
) -> Iterator[tuple[str, bool]]:
    """The project files (absolute) an import of ``full`` may run, lazily (the search
    stops at the first "yes"), each with whether the importer binds it whole (a module
    object, or all its names by ``*``); every path looked at is added to ``probes``."""
    star = not plain and names.strip() == "*"
    for module in _candidates(full, plain):
        found, looked = locate_module(module, roots)
        probes.extend(looked)
        if found is not None:
            yield os.path.abspath(found), plain or star
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
                yield os.path.abspath(sub), True


def file_imports(
    text: str, path: str, roots: tuple[str, ...]
) -> tuple[tuple[str, ...], int, Probes, tuple[str, ...]]:
    """The project files (absolute, once each) that the imports of ``text`` (the file
    ``path``) may run, those of top-level imports first, in order, then the others; how
    many the top-level imports run; every path looked at with its stamp; and those of the
    files the importer binds whole (a module object, or ``*``): its namespace reaches
    every name of theirs, not only the names it spells.

    ``import a.b`` binds ``a``: every package on the way counts. ``from a.b import c``
    binds names of ``a.b``, or its submodule ``a.b.c`` when ``a.b`` is a package. The
    file's own dotted name only matters to relative imports: most files have none, so it
    is computed only then.
    """
    imports = imported_names(text)
    importer: str | None = None
    if any(level for level, _, _, _, _ in imports):
        importer = module_name(path, roots)
    is_package = os.path.basename(path) == "__init__.py"
    probes: list[tuple[str, Stamp | None]] = []
    top: dict[str, None] = {}
    inner: dict[str, None] = {}
    whole: dict[str, None] = {}
    for level, name, plain, names, at_top in imports:
        full = absolute_name(name, level, importer, is_package)
        if not full or full.split(".", 1)[0] in NEVER_PROJECT:
            continue
        for found, bound_whole in _imported_files(full, plain, names, roots, probes):
            (top if at_top else inner)[found] = None
            if bound_whole:
                whole[found] = None
    inner = {link: None for link in inner if link not in top}
    return (*top, *inner), len(top), tuple(dict.fromkeys(probes)), tuple(whole)
