"""Where ``.extstream_cache/`` lives and how whole entries are written to and read from it.

Plain Python (no libcst): the pre-filter's verdicts (:mod:`.modules`) and the analysis's
module summaries (:mod:`.analysis.driver.cache`) share the directory and its rules. The cache is
an optimisation, never needed for correctness: callers ignore every error from here.

An entry is read only if it is a regular file no larger than :data:`MAX_ENTRY_BYTES`
(:mod:`.regular`) whose tag this user's key made for its very name (:mod:`.sealing`);
only then do its bytes reach the restricted unpickler (:mod:`.safe_pickle`). Anything
else (damaged, planted, copied from elsewhere, a FIFO) is a miss, like a missing entry.
"""

from __future__ import annotations

import contextlib
import os
import pickle

from .. import __version__

CACHE_DIR = ".extstream_cache"
_MARKERS = ("pyproject.toml", "setup.cfg", ".git")
#: Bumped when the pickled layout changes without a version change (development).
FORMAT = 4
#: An entry larger than this is not read (a whole project's import table on transformers,
#: the largest, is about 5 MB).
MAX_ENTRY_BYTES = 256 << 20


#: Directory -> its project root, for the process (as an ``lru_cache`` would keep it).
_ROOTS: dict[str, str | None] = {}


def project_root(directory: str) -> str | None:
    """The nearest directory at or above ``directory`` that looks like a project root;
    ``None`` outside any project (installed packages): nothing is cached there. Every
    directory on the way up is remembered with the answer: the files of a project share
    their ancestors, and each is looked at once."""
    if directory in _ROOTS:
        return _ROOTS[directory]
    current = os.path.abspath(directory)
    if len(_ROOTS) > 100_000:
        _ROOTS.clear()
    passed = []
    while current not in _ROOTS:
        passed.append(current)
        if any(os.path.exists(os.path.join(current, marker)) for marker in _MARKERS):
            found: str | None = current
            break
        parent = os.path.dirname(current)
        if parent == current:
            found = None
            break
        current = parent
    else:
        found = _ROOTS[current]
    for below in passed:
        _ROOTS[below] = found
    if os.path.isabs(directory):  # as asked too (not normalised); a relative one is not
        _ROOTS[directory] = found  # kept: the working directory may change
    return found


#: ``--cache-dir`` / ``cache-dir`` (:func:`set_cache_dir`), else ``$EXTSTREAM_CACHE_DIR``: one
#: directory for every project's entries instead of ``.extstream_cache/`` in each (as ruff's
#: ``--cache-dir`` / ``RUFF_CACHE_DIR``). ``None``: each project's own.
_CACHE_HOME: str | None = None


def set_cache_dir(path: str | None) -> None:
    """Keep every project's entries below ``path`` (``None``: in each project's own
    ``.extstream_cache/``, unless ``$EXTSTREAM_CACHE_DIR`` names a directory)."""
    global _CACHE_HOME
    _CACHE_HOME = os.path.abspath(path) if path else None


def cache_home() -> str | None:
    """The directory every project's cache goes below, if one is set (:data:`_CACHE_HOME`)."""
    return _CACHE_HOME or os.environ.get("EXTSTREAM_CACHE_DIR") or None


def cache_dir(root: str) -> str:
    """The cache directory of the project at ``root``: ``root/.extstream_cache``, or, with
    a cache directory set, a directory below it named by a digest of the project's absolute
    root, so two projects sharing one cache directory never share entries."""
    home = cache_home()
    if home is None:
        return os.path.join(root, CACHE_DIR)
    import hashlib

    key = os.path.abspath(root).encode("utf-8", "surrogateescape")
    return os.path.join(os.path.abspath(home), hashlib.blake2b(key, digest_size=10).hexdigest())


def entry_directory(root: str) -> str:
    """The directory of this build's entries: another version, or another commit of the
    same version (:func:`.safe_pickle.code_fingerprint`), never reads them."""
    from .safe_pickle import code_fingerprint

    return os.path.join(cache_dir(root), f"{__version__}-{FORMAT}-{code_fingerprint()}")


def _name(location: str) -> str:
    """What an entry's tag covers besides its bytes: its name below the cache directory
    (the build's directory and the file), so an entry moved or copied to another name
    (another module's, another build's) is refused there."""
    directory, file = os.path.split(location)
    return f"{os.path.basename(directory)}/{file}"


def load(location: str) -> object:
    """The object pickled at ``location``, read without trusting it (the cache sits in the
    linted tree); raises on anything missing, not a regular file, too large, not sealed by
    this user's key for this name (:mod:`.sealing`), or naming anything but our data
    (:mod:`.safe_pickle`)."""
    from .regular import read_regular
    from .safe_pickle import loads
    from .sealing import unseal

    _no_links(location)
    return loads(unseal(_name(location), read_regular(location, MAX_ENTRY_BYTES)))


def store(location: str, value: object) -> None:
    """Write ``value`` to a temporary file renamed over ``location``: concurrent readers
    (``flake8 -j``, editors, pre-commit) only ever see whole entries. Raises on failure."""
    import tempfile  # only when writing: not on flake8's start-up path

    from .sealing import seal

    data = seal(_name(location), pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    if len(data) > MAX_ENTRY_BYTES:
        raise OSError(f"entry larger than {MAX_ENTRY_BYTES} bytes: not kept")
    directory = os.path.dirname(location)
    _no_links(location)
    _prepare(os.path.dirname(directory), directory)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".pickle")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, location)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _no_links(location: str) -> None:
    """Raise unless the cache directory and the build's directory above the entry
    ``location`` are real directories, or absent: a repository may commit a link named
    ``.extstream_cache`` (to ``..``, say), and the cache must not write its ``.gitignore``
    of ``*`` and its entries wherever that leads."""
    directory = os.path.dirname(location)
    for path in (os.path.dirname(directory), directory):
        if os.path.islink(path):
            raise OSError(f"{path} is a symbolic link: the cache is not kept through it")


def _prepare(cache_dir: str, directory: str) -> None:
    """Create the cache directory with a ``.gitignore`` that ignores all of it."""
    import tempfile

    os.makedirs(directory, exist_ok=True)
    ignore = os.path.join(cache_dir, ".gitignore")
    if not os.path.exists(ignore):
        fd, temporary = tempfile.mkstemp(dir=cache_dir, prefix=".tmp-")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("# Automatically created by extstream-lint.\n*\n")
        os.replace(temporary, ignore)
