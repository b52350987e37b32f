"""``extstream_guard.ExternalStream``: a guarded subclass of torch_npu's class.

Its instances are guarded whether or not :func:`extstream_guard.install` ran: the constructor
validates before C++ and the stream methods torch_npu refuses raise precisely. It keeps the real
class's name, qualified name and module (so ``repr(type(ext))`` reads like torch_npu's), and
``isinstance(ext, torch_npu.npu.ExternalStream)`` holds.
"""

from __future__ import annotations

from typing import Any

from . import _state, _torch_npu
from ._patching import unwrap
from .patches import POINTS
from .wrappers import make_wrapper

_cache: dict[int, tuple[Any, Any]] = {}
_METHOD_KINDS = ("self", "wait_stream", "ctor_external")
_OWNERS = ("torch_npu.npu.Stream", "torch_npu.npu.ExternalStream")


def guarded_external_stream() -> Any:
    """Build (once per torch_npu class) and return the guarded ``ExternalStream``."""
    real = _torch_npu.load().npu.ExternalStream
    cached = _cache.get(id(real))
    if cached is not None and cached[0] is real:
        return cached[1]
    namespace: dict[str, Any] = {
        "__module__": real.__module__,
        "__qualname__": real.__qualname__,
        "__doc__": real.__doc__,
    }
    for point in POINTS:
        if point.kind not in _METHOD_KINDS or point.owners[0] not in _OWNERS:
            continue
        original = unwrap(getattr(real, point.attr))
        wrapper = make_wrapper(point, original, _state.CLASS_SESSION)
        namespace[point.attr] = staticmethod(wrapper) if point.attr == "__new__" else wrapper
    guarded = type(real)(real.__name__, (real,), namespace)
    _cache[id(real)] = (real, guarded)
    return guarded
