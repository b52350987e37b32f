"""Objects of torch's API that the analysis tracks by kind, not by what they hold.

An event, a graph, a ``torch.distributed`` work handle, a pinning data loader: what matters
is only which refusals and hazards their methods meet (``wait()`` blocks the current stream,
``capture_begin()`` captures on it...). They carry no other value, so they live apart from
:mod:`.values`, which joins the values that do.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CVoidP", "CapturingGraph", "DeviceCtx", "Event", "Foreign", "GradMode", "Graph",
    "ManagedStream", "PinnedLoader", "Work"
]  # fmt: skip


@dataclass(frozen=True)
class CVoidP:
    """A ``ctypes.c_void_p`` object: torch_npu's argument parser refuses it (TypeError)."""


@dataclass(frozen=True)
class Event:
    """A torch_npu or generic event: ``record()``/``wait()`` default to the current stream."""

    #: A generic ``torch.Event(...)``: the call that made it (its ``wait`` returns early
    #: until it is recorded, contract row X07). None: a torch_npu event, or not known.
    generic_origin: object = None


@dataclass(frozen=True)
class Graph:
    """An ``NPUGraph``: ``capture_begin()``/``capture_end()`` use the current stream."""


@dataclass(frozen=True)
class CapturingGraph:
    """A ``torch.accelerator.Graph``: entering its ``with`` block captures on the current stream."""


@dataclass(frozen=True)
class Work:
    """A ``torch.distributed`` work handle: ``wait()`` blocks the current stream."""


@dataclass(frozen=True)
class PinnedLoader:
    """``DataLoader(..., pin_memory=True)``: every tensor of every batch is pinned."""


@dataclass(frozen=True)
class Foreign:
    """An object of a known API that is not torch_npu's (``torch.cuda.CUDAGraph()``)."""


@dataclass(frozen=True)
class GradMode:
    """``torch.no_grad()``, ``enable_grad()``, ``inference_mode()``, ``set_grad_enabled(f)``:
    as a context or a decorator, the grad mode of its body (:mod:`..semantics.autograd`).
    ``enabled``: the mode inside; None when the flag is not a literal."""

    enabled: bool | None


@dataclass(frozen=True)
class DeviceCtx:
    """``torch.npu.device(k)`` / ``device_of(t)``: its ``with`` block runs on NPU ``k``, so a
    stream made there without ``device=`` is on ``k``. ``index``: an int or a symbolic
    index (:mod:`..semantics.devices`); None when it is not visible."""

    index: object


@dataclass(frozen=True)
class ManagedStream:
    """A torch_npu stream of its own (``torch.npu.Stream(device=1)``) on a visible device.
    The current stream is kept per device, so making it current leaves an external stream
    current on another device as it was (:mod:`..semantics.copies`)."""

    device: object
