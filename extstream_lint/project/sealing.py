"""Authenticating ``.extstream_cache/``: an entry is unpickled only if this user wrote it.

The cache lives inside the linted tree, where it can be damaged (a flipped bit), planted
(a force-committed file: entry names are predictable) or copied from another machine. The
restricted unpickler (:mod:`.safe_pickle`) stops code, not allocation nor wrong facts: a
9-byte entry made every run allocate gigabytes, and one flipped bit lost an importer's
findings on every later run (issue 32). So every entry carries a tag, a keyed BLAKE2b
(RFC 7693's MAC mode: "a faster and simpler replacement for HMAC", :mod:`hashlib`) of
its bytes and of its own name under the cache, with a key kept outside the project, per
user, as Jupyter signs notebooks; an entry whose tag does not match is a miss, checked
before any byte of it reaches the unpickler.

The key: 32 random bytes in ``extstream/cache-key`` under ``$EXTSTREAM_CACHE_KEY_DIR``,
else ``$XDG_CACHE_HOME``, else ``~/.cache``; created on first use with mode 0600 (a
directory 0700), published by a hard link so two processes racing agree on one key; read
only if it is a regular file of this user that nobody else may read. Where there is no
such place (no home, a read-only one), :func:`key` is ``None`` and no cache is read or
written.

BLAKE2b, not :mod:`hmac`: ``hmac`` imports ``hashlib``, whose OpenSSL import costs 2.5 ms
of every flake8 run on a file the pre-filter clears (tests/flake8 forbids it there), where
``_blake2`` (the same object as ``hashlib.blake2b``) costs 0.2 ms.

Plain Python, no libcst: the pre-filter's tables are sealed too.
"""

from __future__ import annotations

import contextlib
import os
import stat

try:  # hashlib's own BLAKE2, without importing hashlib (OpenSSL)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

try:
    from _operator import _compare_digest as compare_digest
except ImportError:  # pragma: no cover
    from hmac import compare_digest

__all__ = ["ENV", "ForeignEntry", "key", "key_file", "seal", "unseal"]

#: The environment variable that names the key's directory (tests, shared CI runners).
ENV = "EXTSTREAM_CACHE_KEY_DIR"
MAGIC = b"XSTC1\n"
_TAG = 32
_KEY = 32


class ForeignEntry(ValueError):
    """An entry this user's key did not seal (damaged, planted, foreign, or no key)."""


def key_file() -> str | None:
    """Where this user's key lives (``None``: no home directory to put it in)."""
    base = os.environ.get(ENV)
    if base:
        return os.path.join(base, "cache-key")
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG spec: a relative value is ignored
        home = os.path.expanduser("~")
        if home == "~" or not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "extstream", "cache-key")


#: Key file -> its key (``None``: no usable key), for the process.
_KEYS: dict[str, bytes | None] = {}


def key() -> bytes | None:
    """This user's key, created on first use; ``None`` where it cannot be kept safely."""
    location = key_file()
    if location is None:
        return None
    if location not in _KEYS:
        found = _read_key(location)
        if found is None:
            found = _create_key(location)
        _KEYS[location] = found
    return _KEYS[location]


def _read_key(location: str) -> bytes | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(location, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != _KEY:
            return None
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            return None  # another user's, or readable by others: not a secret
        data = os.read(fd, _KEY + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) == _KEY else None


def _create_key(location: str) -> bytes | None:
    """Write a new key beside ``location`` and link it there: the link fails if another
    process got there first, whose key is then the one (read back)."""
    directory = os.path.dirname(location)
    temporary = f"{location}.{os.getpid()}.tmp"
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, os.urandom(_KEY))
        finally:
            os.close(fd)
        try:
            os.link(temporary, location)
        except FileExistsError:
            pass
        except OSError:  # no hard links here: a rename (last writer wins, still one key)
            os.replace(temporary, location)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return _read_key(location)


def _tag(secret: bytes, name: str, payload: bytes) -> bytes:
    mac = blake2b(key=secret, digest_size=_TAG, person=b"extstream-cache")
    mac.update(name.encode("utf-8", "surrogatepass"))
    mac.update(b"\0")
    mac.update(payload)
    return mac.digest()


def seal(name: str, payload: bytes) -> bytes:
    """The bytes to store for ``payload`` under the entry name ``name`` (its path below
    ``.extstream_cache/``: an entry moved to another name is not accepted there). Raises
    :class:`ForeignEntry` when there is no key: nothing is written."""
    secret = key()
    if secret is None:
        raise ForeignEntry("no cache key: the cache is off")
    return MAGIC + _tag(secret, name, payload) + payload


def unseal(name: str, data: bytes) -> bytes:
    """The payload of ``data`` read at ``name`` if this user's key sealed it there; raises
    :class:`ForeignEntry` otherwise (no byte of the payload has been interpreted)."""
    secret = key()
    if secret is None:
        raise ForeignEntry("no cache key: the cache is off")
    head = len(MAGIC)
    if len(data) < head + _TAG or not data.startswith(MAGIC):
        raise ForeignEntry("not a sealed entry")
    payload = memoryview(data)[head + _TAG :]
    if not compare_digest(_tag(secret, name, payload), data[head : head + _TAG]):
        raise ForeignEntry("the entry's tag does not match: damaged, planted or foreign")
    return payload.tobytes()
