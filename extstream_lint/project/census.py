"""Does any file of a project mention external streams? One listing of its import roots.

The pre-filter's first question for a file flake8 hands it (the editor's case). Only a
project file that mentions an external stream can hand one out (:mod:`.graph`), and an
import can only reach a file under the roots of its importer (:mod:`.modules`). So when no
Python file under the file's roots mentions one, no import can hand it one, and the import
graph need not be built: on a project of 3,000 modules in one import cycle, it reads and
resolves the imports of all of them (0.4 s cold, 0.15 s warm for its tables), where this
lists the directories and tests each file's bytes for two words (kept with its stamp, so a
warm run lists and stats only). In a project that uses external streams somewhere, some
other file mentions one, and the graph answers as before.

Why the listing covers every file an import can reach: a root is a directory without
``__init__.py`` (above a topmost package, :func:`.modules.package_root`) or a configured
one; the listing starts at each root and at the directory above its packages. A file under
a listed directory has its own package root under it, or (below a configured root that is a
package) that directory above; and module resolution only finds ``root/a/b.py`` or
``root/a/b/__init__.py`` for words ``a``, ``b``: the listing enters every directory whose
name is a word (``site-packages`` and ``.git`` are not), through links too, as resolution
does (a directory met again is listed once). It gives up, and lets the graph answer, where a
directory cannot be listed (resolution may still open a file in it by name) and beyond
:data:`MAX_DIRECTORIES` or :data:`MAX_FILES` (a script in a home directory has the whole
home directory as its root): the cost of asking is bounded.
"""

from __future__ import annotations

import os
import re
import stat

from .modules import installed, package_root, run_memo, stamp_from
from .sources import SourceFacts

#: Beyond these, the listing gives up and the import graph answers.
MAX_DIRECTORIES = 5_000
MAX_FILES = 20_000

#: A directory module resolution may enter: its name is a word of a dotted module name.
_WORD = re.compile(r"\w+")

#: A project's Python files with their stamps (:data:`.modules.Stamp`).
Listing = dict[str, tuple[int, int]]


def others_mention(roots: tuple[str, ...], start: str, sources: SourceFacts) -> bool:
    """May a project file under ``roots``, other than ``start`` (whose text the caller has,
    maybe an editor's buffer), mention an external stream? ``True`` when the listing gave
    up. The listing and its verdicts are made once per run, a listing that gave up too."""
    walked = listed_roots(roots)
    known = run_memo("census", dict)
    mentioning = known.get(walked, _UNKNOWN) if known is not None else _UNKNOWN
    if mentioning is _UNKNOWN:
        listing = python_files(walked)
        mentioning = sources.mentioning(walked, listing) if listing is not None else None
        if known is not None:
            known[walked] = mentioning
    if mentioning is None:
        return True
    return not mentioning <= {start}


def listed_roots(roots: tuple[str, ...]) -> tuple[str, ...]:
    """Where the listing starts: each root (a configured one may itself hold an
    ``__init__.py`` under a name no import spells) and the directory above its packages
    (where the files under it have theirs)."""
    found = {root for root in roots if not installed(root)}
    found.update([package_root(root) for root in found])
    return tuple(sorted(found))


def python_files(roots: tuple[str, ...]) -> Listing | None:
    """Every regular ``.py`` file under ``roots`` in a directory module resolution may
    enter, with its stamp; ``None`` beyond the limits, or where a directory cannot be
    listed (resolution may still find a file in it by name). Links are followed, as
    resolution follows them; a directory met again by another path is listed once."""
    found: Listing = {}
    seen: set[tuple[int, int]] = set()
    pending: list[tuple[str, int]] = []  # a directory, and the device it is on
    for root in roots:
        info = _directory(root)
        if info is not None and info not in seen:
            seen.add(info)
            pending.append((root, info[0]))
    entered = 0
    while pending:
        directory, device = pending.pop()
        entered += 1
        if entered > MAX_DIRECTORIES or len(found) > MAX_FILES:
            return None
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        if entry.is_dir():
                            if _WORD.fullmatch(name):
                                info = _identity(entry, device)
                                if info not in seen:
                                    seen.add(info)
                                    pending.append((entry.path, info[0]))
                        elif name.endswith(".py") and entry.is_file():
                            stamp = entry.stat()
                            found[entry.path] = stamp_from(stamp)
                    except OSError:  # vanished meanwhile, or a dangling link
                        continue
        except (FileNotFoundError, NotADirectoryError):  # vanished meanwhile
            continue
        except OSError:  # cannot be listed, yet a file in it may be opened by name
            return None
    return found


#: Not asked yet in this run (``None`` is an answer: the listing gave up).
_UNKNOWN = object()


def _directory(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _identity(entry: os.DirEntry[str], device: int) -> tuple[int, int]:
    """The directory an entry names: a link, the one it leads to (a stat); any other, by
    its inode on its parent's device (no stat: what the listing already has)."""
    if not entry.is_symlink():
        return (device, entry.inode())
    info = entry.stat()
    return (info.st_dev, info.st_ino)
