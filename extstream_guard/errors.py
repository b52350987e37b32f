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
    "ExternalStreamTypeError",
    "ExternalStreamWarning",
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


class ExternalStreamTypeError(ExternalStreamError, TypeError):
    """A constructor argument torch_npu itself rejects with ``TypeError`` (e.g. ``None``)."""


class ExternalStreamWarning(RuntimeWarning):
    """Emitted instead of raising in ``warn`` mode; the call then goes through unchanged."""


def _rebuild(cls, message, code, operation, device, stream_id):  # type: ignore[no-untyped-def]
    return cls(message, code=code, operation=operation, device=device, stream_id=stream_id)


def _lettered(fixes: tuple[str, ...]) -> str:
    return " ".join(f"{chr(ord('A') + i)}) {fix}" for i, fix in enumerate(fixes))


def build_message(
    code: str,
    operation: str,
    native: str,
    *,
    detail: str,
) -> str:
    """Compose the guard's message for rule ``code``.

    ``native`` is torch_npu's C++ text for this operation (empty when torch_npu raises nothing,
    e.g. ``ExternalStream(0)``); ``detail`` says what the guard saw (which stream, on which
    device, passed how).
    """
    rule = RULES[code]
    head = f"{native} " if native else ""
    return (
        f"{head}[{code}] {operation}: {detail}. {rule.why} Fix with one of: {_lettered(rule.fixes)}"
    )
