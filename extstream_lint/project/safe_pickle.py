"""Reading ``.extstream_cache/`` without trusting it.

The cache lives inside the linted tree, where anyone who can commit a file can plant one (its
name is a hash of a predictable path). ``pickle.load`` on such a file runs whatever the file
asks for, so entries are read with an unpickler that resolves only the analysis's own data
classes and a few builtin containers (the "Restricting Globals" recipe of the :mod:`pickle`
documentation): a file naming anything else is a corrupt entry. It is the second line:
an entry reaches it only with this user's tag (:mod:`.sealing`), because the unpickler
stops code, not allocation (a memo opcode with a large index) nor a wrong summary.

The entries of one build of the analysis are kept apart from every other build's by
:func:`code_fingerprint` (a digest of the package's own source): installs pinned to different
commits of the same version never read each other's summaries.

Plain Python (no libcst, no torch): the pre-filter uses it too.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
import os
import pickle
from functools import lru_cache
from typing import IO, Any, Callable

__all__ = ["UnsafeEntry", "code_fingerprint", "load", "loads", "reference"]

#: Modules whose data classes an entry may hold (summaries, stamps, pre-filter verdicts).
_DATA_MODULES = (
    "extstream_lint.analysis.abstract.values",
    "extstream_lint.analysis.abstract.handles",
    "extstream_lint.analysis.semantics.devices",
    "extstream_lint.analysis.interp.summaries",
    "extstream_lint.analysis.abstract.callables",
    "extstream_lint.analysis.abstract.choices",
    "extstream_lint.analysis.abstract.atoms",
    "extstream_lint.analysis.abstract.members",
    "extstream_lint.analysis.abstract.made",
    "extstream_lint.analysis.abstract.tensors",
    "extstream_lint.analysis.semantics.provenance",
    "extstream_lint.analysis.abstract.sinks",
    "extstream_lint.analysis.semantics.effects",
    "extstream_lint.analysis.semantics.sites",
    "extstream_lint.analysis.driver.index",
    "extstream_lint.analysis.driver.entries",
    "extstream_lint.project.modules",
    "extstream_lint.project.diskio",
)
#: Builtins an entry may name: two containers, and two constants a summary may hold (the
#: ``Const(...)`` of a store under a key not known), pickled by name: none runs anything.
#: (Refused, ``Ellipsis`` made every summary holding one unreadable: a module of the
#: standard library's big cycle was summarised again on each edit of the cycle.)
_BUILTINS = frozenset({"set", "frozenset", "Ellipsis", "NotImplemented"})


class UnsafeEntry(pickle.UnpicklingError):
    """A cache entry that names something other than the analysis's data: never loaded."""


def _is_data_class(value: object) -> bool:
    return isinstance(value, type) and (
        dataclasses.is_dataclass(value) or (issubclass(value, tuple) and hasattr(value, "_fields"))
    )


def reference(*key: object) -> object:
    """What a writer's table reduces an object to that the reader resolves itself (another
    module's summary, a function or class it exports): in the bytes, a call of this with the
    object's key. Never called: the reader's ``resolve`` takes its place, so these are
    persistent references, made without a ``persistent_id`` called for every object."""
    raise UnsafeEntry(f"a reference to {key!r} with nothing to resolve it")


class _Unpickler(pickle.Unpickler):
    def __init__(self, handle: IO[bytes], resolve: Callable[[Any], object] | None) -> None:
        super().__init__(handle)
        self._resolve = resolve

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "reference":
            resolve = self._resolve
            if resolve is None:
                raise UnsafeEntry("cache entry holds a reference and nothing resolves it")
            return lambda *key: resolve(key)
        if module == "builtins" and name in _BUILTINS:
            return getattr(__import__("builtins"), name)
        if module in _DATA_MODULES and "." not in name:
            value = getattr(importlib.import_module(module), name, None)
            if _is_data_class(value):
                return value
        raise UnsafeEntry(f"cache entry names {module}.{name}, which is not analysis data")


def load(handle: IO[bytes], resolve: Callable[[Any], object] | None = None) -> object:
    """Unpickle an entry that may only hold the analysis's data (raises otherwise).
    ``resolve`` takes the key of each reference the writer made (:func:`reference`)."""
    return _Unpickler(handle, resolve).load()


def loads(data: bytes, resolve: Callable[[Any], object] | None = None) -> object:
    return load(io.BytesIO(data), resolve)


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of this package's Python source: it changes with any change of the analysis.

    zlib's two checksums (64 bits), not hashlib: every flake8 run that reads a kept table
    computes it, flake8 has loaded zlib already, and importing hashlib (OpenSSL) cost
    2.5 ms of a 0.45 s run. It tells versions of our own code apart, it guards nothing."""
    import zlib

    # the whole package: this module is extstream_lint/project/safe_pickle.py
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    crc, adler = 0, 1
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                data = handle.read()
            relative = os.path.relpath(path, root).encode("utf-8", "surrogatepass")
            for chunk in (relative, b"\0", data, b"\0"):
                crc, adler = zlib.crc32(chunk, crc), zlib.adler32(chunk, adler)
    return f"{crc:08x}{adler:08x}"
