"""Tell external streams apart by torch_npu's own id encoding, never by class.

torch_npu marks an external stream with bit 30 of ``stream_id`` (``kExternalStreamIdMarker``);
managed ids are at most 159. ``torch.npu.current_stream()`` returns a plain ``Stream`` for an
external stream and ``torch.accelerator.current_stream()`` a generic ``torch.Stream``, so the
class says nothing. Only ``stream_id`` and ``device_type`` are read: ``npu_stream`` would drain
the task queue (and raises under ``PER_STREAM_QUEUE=1``).
"""

from __future__ import annotations

from typing import Any

from . import _torch_npu

#: ``kExternalStreamIdMarker`` in NPUStream.cpp.
EXTERNAL_MARK = 1 << 30
#: ``c10::DeviceType::PrivateUse1``, the device type of every torch_npu stream.
PRIVATEUSE1 = 20

__all__ = ["EXTERNAL_MARK", "PRIVATEUSE1", "current_is_external", "current_stream", "is_external"]


def is_external(stream: Any) -> bool:
    """True for any stream object that wraps an external NPU stream (any class, any API)."""
    # ``stream_id`` is an ``int`` on every stream class (torch's C property); an ``int()``
    # around it cost a third of the check, which every guarded call pays.
    try:
        return stream.device_type == PRIVATEUSE1 and (stream.stream_id & EXTERNAL_MARK) != 0
    except (AttributeError, TypeError):
        return False


def current_stream(device: Any = None) -> Any:
    """The calling thread's current NPU stream on ``device``, as torch_npu itself reports it.

    This goes through ``torch_npu.npu.current_stream`` (which runs ``_lazy_init()`` like every
    torch_npu path that consults the current stream); gating on ``is_initialized()`` would be
    wrong, because ``torch.npu.set_stream(ext)`` never initialises torch_npu in Python.
    """
    return _torch_npu.load().npu.current_stream(device)


def current_is_external(device: Any = None) -> bool:
    """True when the calling thread's current stream on ``device`` is external."""
    return is_external(current_stream(device))
