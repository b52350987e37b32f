"""ExternalStreamError and constructor validation, without any torch_npu."""

from __future__ import annotations

import ctypes
import pickle
import re

import pytest

from extstream_guard import ExternalStreamError, ExternalStreamTypeError
from extstream_guard.ctor import check_external, check_stream_ptr_kwargs, normalize_pointer
from extstream_guard.errors import build_message
from extstream_lint.contract import NATIVE_PRIORITY, NATIVE_SYNCHRONIZE, RULES

#: The spec's stable regex for torch_npu's helper-based messages (section 1.3).
NATIVE_REGEX = (
    r"External NPU stream is not supported in (?P<api>\S+)\. "
    r"This path requires a torch_npu-managed (current )?stream\."
)


def test_message_has_native_text_code_why_and_lettered_fixes() -> None:
    message = build_message("XST101", "Stream.synchronize", NATIVE_SYNCHRONIZE, detail="seen")
    assert message.startswith(NATIVE_SYNCHRONIZE)
    rule = RULES["XST101"]
    assert "[XST101] Stream.synchronize: seen." in message
    assert rule.why in message
    assert message.endswith(f"Fix with one of: A) {rule.fixes[0]} B) {rule.fixes[1]}")


def test_native_regex_still_matches_guard_messages() -> None:
    from extstream_lint.contract import native_not_supported

    message = build_message(
        "XST103", "Event.record", native_not_supported("NPUEvent::record"), detail="x"
    )
    match = re.search(NATIVE_REGEX, message)
    assert match and match.group("api") == "NPUEvent::record"


def test_error_is_a_runtime_error_with_fields_and_pickles() -> None:
    error = ExternalStreamError("text", code="XST104", operation="op", device=1, stream_id=1 << 30)
    assert isinstance(error, RuntimeError)
    clone = pickle.loads(pickle.dumps(error))
    assert type(clone) is ExternalStreamError and str(clone) == "text"
    assert (clone.code, clone.operation, clone.device, clone.stream_id) == (
        "XST104", "op", 1, 1 << 30,
    )  # fmt: skip
    assert issubclass(ExternalStreamTypeError, TypeError)
    assert issubclass(ExternalStreamTypeError, ExternalStreamError)


@pytest.mark.parametrize(
    ("value", "type_error"),
    [
        (0, False), (None, True), (True, False), (False, False), (-1, False),
        (2**64, False), (1.5, True), ("0x10", True), (b"\x01", True), (ctypes.c_void_p(), True),
    ],
)  # fmt: skip
def test_pointers_refused_with_exs001(value: object, type_error: bool) -> None:
    _, problem = normalize_pointer(value)
    assert problem is not None and problem.code == "XST001"
    assert problem.type_error is type_error


class _Index:
    def __index__(self) -> int:
        return 0xABC


@pytest.mark.parametrize(
    "value", [0xABC, ctypes.c_void_p(0xABC), _Index(), 2**64 - 1 - (2**64 - 1 - 0xABC)]
)
def test_pointers_accepted_and_normalised(value: object) -> None:
    pointer, problem = normalize_pointer(value)
    assert problem is None and pointer == 0xABC and type(pointer) is int


def test_check_external_keywords() -> None:
    assert check_external((5,), {})[0] is None
    assert check_external((5,), {"priority": 0, "is_sync_launch": 0, "stream_id": 0})[0] is None
    problem = check_external((5,), {"priority": -1})[0]
    assert problem is not None and problem.code == "XST002" and problem.native == NATIVE_PRIORITY
    for keyword in ("stream_id", "device_index", "device_type"):
        problem = check_external((5,), {keyword: 3})[0]
        assert problem is not None and problem.code == "XST002" and keyword in problem.detail
    # Calls torch_npu rejects by signature are passed on untouched, for its own TypeError.
    assert check_external((), {}) == (None, (), {})
    # An accepted c_void_p is replaced by its int, positionally or by keyword.
    assert check_external((ctypes.c_void_p(9), 0), {})[1] == (9, 0)
    assert check_external((), {"stream_ptr": ctypes.c_void_p(9)})[2] == {"stream_ptr": 9}


def test_check_stream_ptr_kwargs() -> None:
    assert check_stream_ptr_kwargs((), {"stream_ptr": 5}) == (None, {"stream_ptr": 5})
    problem, _ = check_stream_ptr_kwargs((0, -1), {"stream_ptr": 5})
    assert problem is not None and problem.native == NATIVE_PRIORITY
    problem, _ = check_stream_ptr_kwargs((), {"stream_ptr": 5}, sync_launch=True)
    assert problem is not None and problem.code == "XST002"
