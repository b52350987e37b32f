"""Which stack frame a guard warning names: the first one outside the libraries."""

from __future__ import annotations

import sys

#: Frames of these modules are skipped: the guard's own (compiled wrappers carry this
#: package's ``__name__``), torch_npu's and torch's (a guarded callee reached through torch_npu
#: or torch.distributed code warns at the user's call), and contextlib (``installed()``).
_LIBRARIES = ("extstream_guard", "torch_npu", "torch", "contextlib")
_PREFIXES = tuple(f"{name}." for name in _LIBRARIES)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` issued by this function's caller name
    the innermost frame outside the libraries above (1, the caller, if there is none)."""
    frame = sys._getframe(1)  # the caller, who calls warnings.warn
    level = 1
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name not in _LIBRARIES and not name.startswith(_PREFIXES):
            return level
        frame = frame.f_back
        level += 1
    return 1


_MODULE_METHODS = ("to", "cuda", "cpu", "to_empty", "type", "float", "double", "half", "bfloat16")
#: Library functions that reach a guarded callee and are what the user called, by module and
#: function name: an error names them, not the callee (issue 40).
_ENTRY_POINTS = {
    ("torch.utils.backend_registration", "wrap_tensor_to"): "Tensor.{backend}",
    ("torch.utils.backend_registration", "wrap_module_to"): "Module.{backend}",
    **{("torch.nn.modules.module", name): f"Module.{name}" for name in _MODULE_METHODS},
    ("torch_npu.npu.streams", "wait_stream"): "Stream.wait_stream",
    ("torch_npu.npu.streams", "record_event"): "Stream.record_event",
    ("torch_npu.npu.streams", "wait_event"): "Stream.wait_event",
}
_TRANSFER = "torch_npu.contrib.transfer_to_npu"


def spelled(operation: str, backend: str = "npu") -> str:
    """How the user spelled the call that reached the guarded ``operation``: the outermost
    library entry point on the stack below the user's frame (``.npu()``, ``Module.to``,
    ``s.wait_stream(ext)``), else ``operation``. Walked only when the guard reports."""
    frame = sys._getframe(1)
    found = None
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if name not in _LIBRARIES and not name.startswith(_PREFIXES):
            break
        entry = _ENTRY_POINTS.get((name, frame.f_code.co_name))
        if entry is not None:
            found = entry.format(backend=backend)
        frame = frame.f_back
    if found is None or found == operation:
        return operation
    if found.endswith(f".{backend}") and _TRANSFER in sys.modules:
        found += " (or .cuda, which transfer_to_npu makes the same method)"
    if found == "Stream.wait_stream" and operation.startswith("Event.record"):
        found += " (records an event on its argument)"
    return found
