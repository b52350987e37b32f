"""What the hazard rules know about a value that may be a tensor: where its memory is and
which streams were current while its graph was computed (spec section 2.6). Kept apart from
:mod:`.values`, which joins every kind of value, because these facts join by their own rule:
what is true on both paths, a stream on one path only as a "may".
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ... import contract as c
from .made import Made, join_made

__all__ = ["FLAGGED", "HOST", "NPU", "PINNED", "UNKNOWN", "Tensor", "device_of", "join_tensors"]

#: ``Tensor.place``: where a tensor's memory is, as far as the analysis can see.
HOST = "host"  #: pageable host memory (copies with it are synchronous: safe)
PINNED = "pinned"  #: torch_npu pinned host memory (``pin_memory()``, ``pin_memory=True``)
NPU = "npu"  #: an NPU (``Tensor.index`` when the device index is visible)
UNKNOWN = ""
#: Host memory pinned or not as a parameter says (``torch.empty(n, pin_memory=pin)`` in a
#: body learnt for every caller): what a caller's allocation gave it decides (``paths``).
FLAGGED = "host, pinned if a parameter says so"


@dataclass(frozen=True)
class Tensor:
    """What the hazard rules know about a value that may be a tensor (spec section 2.6).

    Unknown results of calls are mostly left as ``None``; a ``Tensor`` is made where a fact is
    visible: where its memory is (``place``, ``index``) or which stream was current when it
    was computed (``made``, for autograd). Any other object may hide behind it too, so
    checks that accept "unknown" accept a ``Tensor`` whose ``place`` is unknown.
    """

    place: str = UNKNOWN
    #: The NPU's index when visible (``device="npu:1"``): an int, or a symbolic
    #: :class:`.devices.Sym` (``device + 1``).
    index: object = None
    #: The streams current while its graph was computed (:mod:`.provenance`), if known.
    made: Made | None = None

    def with_place(self, place: str, index: object = None) -> Tensor:
        return replace(self, place=place, index=index)


def join_tensors(a: Tensor, b: Tensor) -> Tensor:
    """Facts true on both paths; a stream computed under on one path only is a "may"."""
    place = a.place if a.place == b.place else UNKNOWN
    index = a.index if a.index == b.index else None
    return Tensor(place, index, join_made(a.made, b.made))


def device_of(tensor: Tensor) -> object:
    """``t.device`` as a device argument reads it: ``("npu", index)``, ``"cpu"``, or None."""
    if tensor.place == NPU:
        return (c.NPU_DEVICES[0], tensor.index)
    if tensor.place in (HOST, PINNED, FLAGGED):
        return c.HOST_DEVICE
    return None
