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

from dataclasses import replace

from ..abstract.atoms import ExtStream
from ..abstract.values import PINNED, Tensor, Value
from .devices import DIFFERENT, SAME, UNSURE, compare, show, visible
from .sites import Issue

__all__ = [
    "AWAY",
    "HOST_ARG",
    "PINNED_ARG",
    "UNKNOWN_HOST",
    "argument_matches",
    "by_parameter",
    "cross_device",
    "elsewhere",
]

#: How an external stream is current while a managed stream on another NPU is the current
#: one (:data:`..interp.gradmode.AWAY_KEY`): copies that touch its NPU still run on it, a
#: copy to or from "the current NPU" (no index) does not. Read into the message
#: ("made current on its own NPU at line 3").
AWAY = "made current on its own NPU at"
#: How XST211's message names a host side of unknown memory.
UNKNOWN_HOST = "from host memory not known to be pageable"
#: Guards of a helper's copy sinks (:attr:`.sites.Issue.guard`): the sink applies when the
#: caller's argument is pinned (XST201), or of unknown memory (XST211).
PINNED_ARG = "pinned tensor"
HOST_ARG = "tensor of unknown memory"


def cross_device(op: str, source: object, target: object, current: ExtStream) -> Issue | None:
    """``op`` copies from NPU ``source`` to NPU ``target`` while ``current`` is current."""
    if compare(source, target) != DIFFERENT:
        return None  # the same device, or not known to differ: no event between devices
    text = f"{op}() copies from {show(source)} to {show(target)}"
    devices = visible(current.device)
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


def elsewhere(current: ExtStream, index: object) -> bool:
    """A host copy on NPU ``index`` takes *that* device's current stream (hazards.md, hazard
    1): True when the external stream is known to be current on other devices only (a pinned
    copy into npu:1 while it is current on npu:0), so nothing is recorded on it."""
    devices = visible(current.device)
    if index is None:  # the current NPU: the managed stream's, when the external one is away
        return current.how == AWAY
    if not devices:
        return False
    return all(compare(device, index) == DIFFERENT for device in devices)


def _touches(device: object, source: object, target: object) -> str:
    """Whether a stream on ``device`` is one of the copy's two devices' current streams."""
    first, second = compare(device, source), compare(device, target)
    if SAME in (first, second):
        return SAME
    if first == second == DIFFERENT:
        return DIFFERENT
    return UNSURE


def by_parameter(issues: list[Issue], hosts: list[Value], current: ExtStream | None) -> list[Issue]:
    """A helper's copy on the caller's current stream whose host side is a parameter
    (``def send(t): return t.to("npu", non_blocking=True)``): what it breaks depends on what
    the caller passes, so its XST211 becomes guarded sinks: XST201 where the caller's
    tensor is pinned, XST211 where its memory is unknown, nothing where it is pageable.
    ``hosts``: the sides that may be the host (both of ``dst.copy_(src)`` when neither is
    known to be on an NPU)."""
    refs = [h.param for h in hosts if isinstance(h, ExtStream) and h.param is not None]
    if not refs or current is None or current.param is None:
        return issues  # not a parameter, or the helper's own external stream: judged here
    result = []
    for issue in issues:
        if issue.code != "XST211":
            result.append(issue)
            continue
        pinned = issue.operation.replace(UNKNOWN_HOST, "from pinned memory")
        for ref in refs:
            result.append(replace(issue, code="XST201", operation=pinned, guard=(ref, PINNED_ARG)))
            result.append(replace(issue, guard=(ref, HOST_ARG)))
    return result


def argument_matches(kind: str, value: Value) -> bool | None:
    """Whether a caller's argument satisfies a copy guard; None for the other guard kinds."""
    if kind == PINNED_ARG:
        return isinstance(value, Tensor) and value.place == PINNED
    if kind == HOST_ARG:
        return value is None or (isinstance(value, Tensor) and not value.place)
    return None
