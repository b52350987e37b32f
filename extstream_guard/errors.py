"""The error the guard raises: torch_npu's own text first, then the why and the fixes.

The message starts with the exact C++ text torch_npu would have raised (so code that matches it
with ``assertRaisesRegex`` keeps working), then the rule code, the operation, the device and
stream id, the reason and "Fix with one of: A) ... B) ...". Codes, reasons and fixes come from
``extstream_lint.contract`` - the table the linter uses - never from here.
"""

from __future__ import annotations

from extstream_lint.contract import RULES

__all__ = [
    "ExternalStreamError",
    "ExternalStreamWarning",
    "GuardCoverageWarning",
    "build_message",
]


class ExternalStreamError(RuntimeError):
    """An operation torch_npu does not support on an external NPU stream.

    A ``RuntimeError`` like torch_npu's own error, so existing ``except RuntimeError`` code and
    regex assertions still work. Attributes: ``code`` (``XST...``), ``operation`` (the Python
    API), ``device`` (device index, or None) and ``stream_id`` (or None).
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        operation: str,
        device: int | None = None,
        stream_id: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.operation = operation
        self.device = device
        self.stream_id = stream_id

    def __reduce__(self):  # keep pickling (multiprocessing, xdist) working with keyword fields
        return (
            _rebuild,
            (type(self), str(self), self.code, self.operation, self.device, self.stream_id),
        )


class ExternalStreamWarning(RuntimeWarning):
    """Emitted instead of raising in ``warn`` mode; the call then goes through unchanged."""


class GuardCoverageWarning(UserWarning):
    """:func:`extstream_guard.install` could not find some of its patch targets (an older or
    newer torch / torch_npu): the calls they stand for are not guarded. The message names each
    one. Not an :class:`ExternalStreamWarning`, so ``-W error::ExternalStreamWarning`` does not
    turn a coverage note into a failure."""


def _rebuild(cls, message, code, operation, device, stream_id):  # type: ignore[no-untyped-def]
    return cls(message, code=code, operation=operation, device=device, stream_id=stream_id)


def _lettered(fixes: tuple[str, ...]) -> str:
    return " ".join(f"{chr(ord('A') + i)}) {fix}" for i, fix in enumerate(fixes))


#: What the guard says instead of a rule's "why" where that text describes torch_npu's failure
#: after it has changed state, or as happening (the present tense of XST201 / XST203): when the
#: guard raises first, that state change did not happen (issue 40). XST106: capture is refused
#: by policy (contract 8.8), not through the task queue as the rule's text says.
#: Keyed by code; ``True``: the guard stopped the call, ``False``: it only warned. Waiting on
#: a work (the collective has run already) has its own text.
_WORK_WAIT = (
    "Waiting blocks the work's end event on the current stream (`NPUEvent::block`), which "
    "torch_npu refuses for an external stream; the collective itself has already run."
)
_CONSEQUENCES = {
    "XST201": {
        True: "The guard refused the copy before torch_npu ran it: nothing was copied and no "
        "stream was recorded. Let through, the copy would succeed, but torch_npu would record "
        "the current stream on the pinned host block, and when the last reference to that "
        "tensor died the host allocator would record an event on the external stream from the "
        "tensor's deleter, which torch_npu refuses (`NPUEvent::record`); the error would "
        "escape a destructor and abort the process with `std::terminate`, with no traceback, "
        "often long after the copy. Pageable host memory is safe (torch_npu makes that copy "
        "synchronous), and so is `non_blocking=False`.",
        False: RULES["XST201"].why,
    },
    "XST203": {
        True: "The guard refused the call before the autograd engine ran: no gradient was "
        "computed or recorded. The engine runs each node on the stream its forward ran on and "
        "orders streams that differ with events (`LaunchRecordEventTask` / "
        "`LaunchWaitEventTask`), which torch_npu refuses on an external stream, so `backward()` "
        "would raise; with the forward under the external stream and the backward outside it, "
        "the engine would first record the external stream on the root gradient (a path that "
        "bypasses the check), and freeing that gradient would abort the process with "
        "`std::terminate`.",
        False: RULES["XST203"].why,
    },
    "XST106": {
        True: "torch_npu refuses graph capture on an external stream by policy "
        "(`NPUGraph::capture_begin` checks the current stream; capture does not go through the "
        "task queue). The guard refused the call before torch_npu ran it (for "
        "`torch.npu.graph(g, stream=ext)`: before `ext` was made current, so the current stream "
        "is unchanged).",
        False: "torch_npu refuses graph capture on an external stream by policy "
        "(`NPUGraph::capture_begin` checks the current stream; capture does not go through the "
        "task queue). A failed `torch.npu.graph(g, stream=ext)` also leaves `ext` as the "
        "current stream.",
    },
    "XST111": {
        True: "The guard refused the call before torch_npu ran it: nothing was sent and the "
        "process group's sequence counters have not advanced (torch_npu would refuse it only "
        "after advancing them, so ranks that did not fail would block).",
        False: "The call goes ahead: torch_npu advances the process group's sequence counters, "
        "then refuses it, and ranks that did not fail block.",
    },
}


def build_message(
    code: str,
    operation: str,
    native: str,
    *,
    detail: str,
    stopped: bool = True,
) -> str:
    """Compose the guard's message for rule ``code``.

    ``native`` is torch_npu's C++ text for this operation (empty when torch_npu raises nothing,
    e.g. ``ExternalStream(0)``); ``detail`` says what the guard saw (which stream, on which
    device, passed how); ``stopped`` whether the guard raises (True) or only warns, which
    decides what has already happened when the message is read.
    """
    rule = RULES[code]
    head = f"{native} " if native else ""
    why = rule.why
    consequence = _CONSEQUENCES.get(code)
    if code == "XST111":
        tail = _WORK_WAIT if operation.startswith("Work.") else consequence[stopped]  # type: ignore[index]
        why = f"{rule.why_short[:1].upper()}{rule.why_short[1:]}. {tail}"
    elif consequence is not None:
        why = consequence[stopped]
    return f"{head}[{code}] {operation}: {detail}. {why} Fix with one of: {_lettered(rule.fixes)}"
