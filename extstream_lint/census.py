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
one, walked from the directory above its own packages. Any file under such a directory has
its package root under it too, and module resolution only finds ``root/a/b.py`` or
``root/a/b/__init__.py`` for words ``a``, ``b``: the listing enters every directory whose
name is a word (``site-packages`` and ``.git`` are not). It gives up, and lets the graph
answer, beyond :data:`MAX_DIRECTORIES` or :data:`MAX_FILES` (a script in a home directory
has the whole home directory as its root): the cost of asking is bounded.
"""

from __future__ import annotations

import os
import re

from .modules import installed, package_root, run_memo
from .sources import SourceFacts

#: Beyond these, the listing gives up and the import graph answers.
MAX_DIRECTORIES = 5_000
MAX_FILES = 20_000

#: A directory module resolution may enter: its name is a word of a dotted module name.
_WORD = re.compile(r"\w+")

#: A project's Python files with their stamps: path -> (size, mtime in ns).
Listing = dict[str, tuple[int, int]]


def others_mention(roots: tuple[str, ...], start: str, sources: SourceFacts) -> bool:
    """May a project file under ``roots``, other than ``start`` (whose text the caller has,
    maybe an editor's buffer), mention an external stream? ``True`` when the listing gave
    up. The listing and its verdicts are made once per run."""
    walked = tuple(sorted({package_root(root) for root in roots if not installed(root)}))
    known = run_memo("census", dict)
    mentioning = known.get(walked) if known is not None else None
    if mentioning is None:
        listing = python_files(walked)
        mentioning = sources.mentioning(walked, listing) if listing is not None else None
        if known is not None:
            known[walked] = mentioning
    if mentioning is None:
        return True
    return len(mentioning) > 1 or (bool(mentioning) and start not in mentioning)


def python_files(roots: tuple[str, ...]) -> Listing | None:
    """Every ``.py`` file under ``roots`` in a directory module resolution may enter, with
    its stamp; ``None`` beyond the limits."""
    found: Listing = {}
    pending = [root for root in roots if os.path.isdir(root)]
    entered = 0
    while pending:
        directory = pending.pop()
        entered += 1
        if entered > MAX_DIRECTORIES or len(found) > MAX_FILES:
            return None
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    try:
                        if entry.is_dir():
                            if _WORD.fullmatch(name) and not _loops(entry):
                                pending.append(entry.path)
                        elif name.endswith(".py"):
                            info = entry.stat()
                            found[entry.path] = (info.st_size, info.st_mtime_ns)
                    except OSError:  # vanished meanwhile, or a dangling link
                        continue
        except OSError:  # unreadable: module resolution cannot enter it either
            continue
    return found


def _loops(entry: os.DirEntry[str]) -> bool:
    """A link to a directory above it: entering it would never end."""
    if not entry.is_symlink():
        return False
    target = os.path.realpath(entry.path)
    here = os.path.realpath(os.path.dirname(entry.path))
    return here == target or here.startswith(target.rstrip(os.sep) + os.sep)
