"""ExternalStreamError and constructor validation, without any torch_npu."""

from __future__ import annotations

import ctypes
import pickle
import re

import pytest

from extstream_guard import ExternalStreamError
from extstream_guard.ctor import check_external, check_stream_ptr_kwargs, pointer_problem
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


@pytest.mark.parametrize("value", [0, True, False, -1, 2**64])
def test_int_pointers_torch_npu_would_accept_are_refused_with_xst001(value: int) -> None:
    problem = pointer_problem(value)
    assert problem is not None and problem.code == "XST001"


class _Index:
    def __index__(self) -> int:
        return 0xABC


@pytest.mark.parametrize(
    "value", [0xABC, 2**64 - 1, None, 1.5, "0x10", b"\x01", ctypes.c_void_p(0xABC), _Index()]
)
def test_valid_or_natively_rejected_pointers_are_not_judged(value: object) -> None:
    # Non-ints get torch_npu's own TypeError ("argument 6 must be int"), which comes first.
    assert pointer_problem(value) is None
    assert check_external((value,), {}) is None
    assert check_stream_ptr_kwargs((), {"stream_ptr": value}) is None


def test_check_external_keywords() -> None:
    assert check_external((5,), {}) is None
    assert check_external((5,), {"priority": 0, "is_sync_launch": 0, "stream_id": 0}) is None
    problem = check_external((5,), {"priority": -1})
    assert problem is not None and problem.code == "XST002" and problem.native == NATIVE_PRIORITY
    for keyword in ("stream_id", "device_index", "device_type"):
        problem = check_external((5,), {keyword: 3})
        assert problem is not None and problem.code == "XST002" and keyword in problem.detail
    assert check_external((5,), {"device": 1, "priority": -1}) is not None  # device: Python's
    # Calls torch_npu's parser rejects itself are not judged: its own TypeError comes first.
    assert check_external((), {}) is None
    assert check_external((5,), {"priority": 1.5}) is None
    assert check_external((5,), {"priority": -1, "stream_id": 1.5}) is None
    assert check_external((5,), {"priority": -1, "foo": 1}) is None


def test_check_stream_ptr_kwargs() -> None:
    assert check_stream_ptr_kwargs((), {"stream_ptr": 5}) is None
    problem = check_stream_ptr_kwargs((0, -1), {"stream_ptr": 5})
    assert problem is not None and problem.native == NATIVE_PRIORITY
    problem = check_stream_ptr_kwargs((), {"stream_ptr": 5}, sync_launch=True)
    assert problem is not None and problem.code == "XST002"
