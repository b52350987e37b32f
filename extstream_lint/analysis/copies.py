"""Copies between two NPUs while an external stream is current on one of them (XST112).

The copy kernel records an event on the source device's current stream and makes the
destination device's current stream wait on it (hazards.md, side finding of hazard 1). The
current stream is per device (contract section 5), so the copy fails only if the external
stream is current *on one of the two devices*: ``torch.npu.stream(link)`` with ``link`` on
npu:2 leaves npu:0 and npu:1 on their own streams, and a copy between those is fine.

The external stream's device comes from its constructor (``ExternalStream(p, device=1)``,
:func:`.devices.stream_device`) and is joined over paths. When it is not visible
(``ExternalStream(p)`` is on whatever device is current, which the analysis does not follow)
the copy is reported with "may be": it fails exactly on the runs where that device is one
of the copy's, the same wording the other rules use for what holds on some runs only. When
every device the stream may be on differs from both of the copy's, nothing is reported.
"""

from __future__ import annotations

from .devices import DIFFERENT, SAME, UNSURE, compare, show
from .sites import Issue
from .values import ExtStream

__all__ = ["cross_device"]


def cross_device(op: str, source: object, target: object, current: ExtStream) -> Issue | None:
    """``op`` copies from NPU ``source`` to NPU ``target`` while ``current`` is current."""
    if compare(source, target) != DIFFERENT:
        return None  # the same device, or not known to differ: no event between devices
    text = f"{op}() copies from {show(source)} to {show(target)}"
    devices = current.device
    if devices is None:
        text += " (the external stream's device is not visible)"
        return Issue("XST112", text, current.weakened(), None, True)
    touches = [_touches(device, source, target) for device in devices]
    if all(verdict == DIFFERENT for verdict in touches):
        return None  # the external stream is current on another device only
    sure = all(verdict == SAME for verdict in touches)
    if not sure:
        text += " (the external stream may be on another device)"
    return Issue("XST112", text, current if sure else current.weakened(), None, True)


def _touches(device: object, source: object, target: object) -> str:
    """Whether a stream on ``device`` is one of the copy's two devices' current streams."""
    first, second = compare(device, source), compare(device, target)
    if SAME in (first, second):
        return SAME
    if first == second == DIFFERENT:
        return DIFFERENT
    return UNSURE
