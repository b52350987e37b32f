"""A bound on what one file's analysis may cost in memory: its size.

libcst's parse takes about 500 times a file's size in memory (a 4 MB file peaked over
2 GB), and nothing else bounded it. A file larger than :data:`DEFAULT_MAX_FILE_BYTES`
(``max-file-size`` in ``[tool.extstream-lint]``, ``--max-file-size`` on the command line)
is not parsed: linted, it gets one XST000 that names the limit; imported, it is not
followed (its names are unknown, as for a module that cannot be parsed).

Plain Python, no imports, in the bottom layer: the frontends read the default with the
configuration (on flake8's path, where the analysis package is not imported) and set it
before any analysis.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "max_file_bytes",
    "over_limit",
    "set_max_file_bytes",
    "too_large",
]

#: 2 MB: four times the largest module of transformers or the standard library, about
#: 1 GB at the peak of libcst's parse.
DEFAULT_MAX_FILE_BYTES = 2_000_000

_LIMIT = [DEFAULT_MAX_FILE_BYTES]


def set_max_file_bytes(limit: int) -> None:
    """The bound for this process (the CLI passes it to each worker with its files)."""
    _LIMIT[0] = limit


def max_file_bytes() -> int:
    return _LIMIT[0]


def over_limit(text: str) -> str | None:
    """Why ``text`` (decoded) is not analysed, or ``None`` when it is within the bound.
    The size is that of its UTF-8 encoding, measured only when its length may exceed it."""
    limit = _LIMIT[0]
    if len(text) * 4 <= limit:  # no character takes more than four bytes
        return None
    size = len(text) if len(text) > limit else len(text.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return too_large(size)


def too_large(size: int | None) -> str:
    """Why a file of ``size`` bytes (``None``: more than the limit, read no further) is
    not analysed. Readers check the size on disk before reading (:func:`.sources.
    read_project_file` reads at most the limit and one byte), so a file of gigabytes costs
    a ``stat``, never its bytes in memory."""
    limit = _LIMIT[0]
    said = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
    return (
        f"the file is {said}, over the limit of {limit:,} bytes on what one file's "
        "analysis may take (max-file-size in [tool.extstream-lint], --max-file-size)"
    )
