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
#: after it has changed state: when the guard raises first, that state change did not happen.
#: Keyed by code; ``True``: the guard stopped the call, ``False``: it only warned. Waiting on
#: a work (the collective has run already) has its own text.
_WORK_WAIT = (
    "Waiting blocks the work's end event on the current stream (`NPUEvent::block`), which "
    "torch_npu refuses for an external stream; the collective itself has already run."
)
_CONSEQUENCES = {
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
    if consequence is not None:
        tail = _WORK_WAIT if operation.startswith("Work.") else consequence[stopped]
        why = f"{rule.why_short[:1].upper()}{rule.why_short[1:]}. {tail}"
    return f"{head}[{code}] {operation}: {detail}. {why} Fix with one of: {_lettered(rule.fixes)}"
