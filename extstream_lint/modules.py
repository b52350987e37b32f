"""Module resolution: which file of the project an import names.

Roots are found as mypy and pytest find them: from a file, walk up while the directory
holds an ``__init__.py``; the directory above the topmost package is a root (for a file
outside any package, its own directory is). Configured roots (``[tool.extstream-lint]
src = ["src"]``) are added. Installed packages are never analysed: a name that resolves
to no file under a root is not the project's (torch and torch_npu come from the contract).

No libcst here: it is only paths and strings, cheap enough for the pre-filter.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

#: (size, mtime in ns) of a file: what invalidates anything computed from it.
Stamp = tuple[int, int]

#: Known from the contract table (or irrelevant), never analysed as project code.
NEVER_PROJECT = frozenset({"torch", "torch_npu", "__future__", "typing", "contextlib"})


def stamp_of(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


@lru_cache(maxsize=4096)
def package_root(directory: str) -> str:
    """The import root of a file in ``directory``: above its topmost package."""
    directory = os.path.abspath(directory)
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


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
    """Import roots for a file: its package root first, then the configured ones."""
    absolute = tuple(os.path.abspath(r) for r in configured)  # the cwd may change: not cached
    return _roots_of_directory(os.path.dirname(os.path.abspath(path)), absolute)


@lru_cache(maxsize=4096)
def _roots_of_directory(directory: str, configured: tuple[str, ...]) -> tuple[str, ...]:
    """Per directory, not per file: every file of a package shares its roots."""
    roots = [package_root(directory)]
    roots.extend(r for r in configured if r not in roots)
    return tuple(roots)


@lru_cache(maxsize=65536)
def find_module(name: str, roots: tuple[str, ...]) -> str | None:
    """The file of module ``name`` under ``roots``: ``a/b.py`` or ``a/b/__init__.py``."""
    if not name:
        return None
    parts = name.split(".")
    for root in roots:
        if installed(root):
            continue
        base = os.path.join(root, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


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


# Anchored on a newline (a literal) rather than ``^`` with re.M: several times faster.
_IMPORT = re.compile(r"\n[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import\b|import[ \t]+([\w.]+))")


def imported_names(text: str) -> list[tuple[int, str, bool]]:
    """(level, module, is it a plain ``import``) of each import statement, by a regex."""
    found = []
    for match in _IMPORT.finditer("\n" + text if text.startswith(("from", "import")) else text):
        dots, module, plain = match.groups()
        if plain is not None:
            found.append((0, plain, True))
        else:
            found.append((len(dots), module, False))
    return found


class ExternalImports:
    """The widened pre-filter: does a file import a project module that may hand it an
    external stream (a module mentioning one, or importing such a module, transitively)?

    Text only, memoised per file stamp: projects that never use ExternalStream pay a regex
    and a few ``stat`` calls per import, never a parse.
    """

    def __init__(self, src: tuple[str, ...] = ()) -> None:
        self.src = src
        self._flags: dict[str, tuple[Stamp, bool]] = {}

    def imports_external(self, text: str, path: str) -> bool:
        if not path or path.startswith("<") or path in ("-", "stdin"):
            return False
        return self._imports_flag(imported_names(text), path, roots_for(path, self.src), 0)

    def file_may_export(self, path: str, roots: tuple[str, ...]) -> bool:
        """Whether a project file mentions external streams or imports one that does."""
        return self._file_flag(path, roots, 0)

    def _module_flag(self, name: str, roots: tuple[str, ...], depth: int, plain: bool) -> bool:
        """``import a.b`` binds ``a``: every package on the way counts. ``from a.b import
        c`` binds names of ``a.b`` only (or of its submodule ``c``, not seen here)."""
        if not name or name.split(".", 1)[0] in NEVER_PROJECT or depth > 50:
            return False
        parts = name.split(".")
        for end in range(len(parts), 0, -1):
            path = find_module(".".join(parts[:end]), roots)
            if path is None:
                continue
            if self._file_flag(os.path.abspath(path), roots, depth):
                return True
            if not plain:
                return False
        return False

    def _file_flag(self, path: str, roots: tuple[str, ...], depth: int) -> bool:
        stamp = stamp_of(path) or (0, 0)
        known = self._flags.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        self._flags[path] = (stamp, False)  # an import cycle: no, while computing
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            return False
        from .prefilter import might_use_external_streams

        flag = might_use_external_streams(text)
        if not flag:
            flag = self._imports_flag(imported_names(text), path, roots, depth + 1)
        self._flags[path] = (stamp, flag)
        return flag

    def _imports_flag(
        self, imports: list[tuple[int, str, bool]], path: str, roots: tuple[str, ...], depth: int
    ) -> bool:
        """Whether one of ``imports`` (of the file ``path``) may hand out external streams.

        The file's own dotted name only matters to relative imports: most files have none,
        and the pre-filter runs on every file of the project, so it is computed only then.
        """
        importer: str | None = None
        if any(level for level, _, _ in imports):
            importer = module_name(path, roots)
        is_package = os.path.basename(path) == "__init__.py"
        return any(
            self._module_flag(absolute_name(name, level, importer, is_package), roots, depth, plain)
            for level, name, plain in imports
        )


_SHARED: dict[tuple[str, ...], ExternalImports] = {}


def external_imports(src: tuple[str, ...] = ()) -> ExternalImports:
    """The process-wide memo for a set of configured roots."""
    found = _SHARED.get(src)
    if found is None:
        found = _SHARED[src] = ExternalImports(src)
    return found
