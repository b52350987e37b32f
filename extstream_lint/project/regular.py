"""Opening only regular files: a FIFO, a device or a socket is refused before it is read.

``open()`` on a FIFO waits for a writer forever, and reading ``/dev/zero`` never ends: a
project file or a cache entry replaced by one hung the CLI and flake8 (issue 32). So every
read of a project file or of ``.extstream_cache/`` goes through :func:`read_regular`:
``stat`` first (opening some devices has effects), then an ``O_NONBLOCK`` open (the path may
be swapped for a FIFO between the two: such an open returns at once) and ``fstat`` of the
descriptor actually opened, which decides. A read is bounded where the caller gives a limit.

Plain Python, no libcst: the pre-filter reads through it.
"""

from __future__ import annotations

import os
import stat

__all__ = ["NotRegular", "TooLarge", "kind_of", "read_head", "read_regular"]

#: Where it matters (Windows), a descriptor that reads bytes as they are.
_BINARY = getattr(os, "O_BINARY", 0)
_FLAGS = os.O_RDONLY | _BINARY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 16

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegular(OSError):
    """The path is not a regular file: not opened (or opened without blocking, not read)."""


class TooLarge(OSError):
    """The file is larger than the caller's limit: not read. ``size``: its size on disk
    (``None`` when it grew past the limit while read)."""

    size: int | None = None


def _too_large(limit: int, path: str, size: int | None) -> TooLarge:
    error = TooLarge(0, f"larger than {limit} bytes", path)
    error.size = size
    return error


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words, for the reason a user reads."""
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def read_regular(path: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``; raises :class:`NotRegular` for anything
    else, :class:`TooLarge` past ``limit`` bytes, ``OSError`` as ``open`` does.

    Read through the descriptor to the end (the file may have grown since the ``fstat``),
    at most ``limit + 1`` bytes: an entry that grew past the limit is refused, not cut."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(0, f"not a regular file: {kind_of(info.st_mode)}", path)
    if limit is not None and info.st_size > limit:
        raise _too_large(limit, path, info.st_size)
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped between the stat and the open
            raise NotRegular(0, f"not a regular file: {kind_of(info.st_mode)}", path)
        budget = (limit + 1) if limit is not None else None
        first = info.st_size + 1 if budget is None else min(info.st_size + 1, budget)
        chunks = [os.read(fd, first)]
        total = len(chunks[0])
        while chunks[-1] and (budget is None or total < budget):
            step = _CHUNK if budget is None else min(_CHUNK, budget - total)
            chunks.append(os.read(fd, step))
            total += len(chunks[-1])
    finally:
        os.close(fd)
    if limit is not None and total > limit:
        raise _too_large(limit, path, None)
    return chunks[0] if len(chunks) <= 2 else b"".join(chunks)


def read_head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of the regular file ``path`` (as :func:`read_regular`
    opens it: never a FIFO or a device)."""
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(0, f"not a regular file: {kind_of(info.st_mode)}", path)
        return os.read(fd, size)
    finally:
        os.close(fd)
