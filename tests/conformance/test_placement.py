"""One finding per defect, over the whole conformance suite (issue 38, family 2).

A defect is one refused operation site reached by one external stream, whatever call chains
reach it (:mod:`tests.conformance.placement` reads both from the finding's message: the
operation's line, which a call's finding names as ``(file.py:line)``, and the stream's
origin). The rule: at the operation when what makes the value external is known without the
caller (the function's own code, its class's guarantee, a module global); at a call only when
the caller's argument makes it external, and then at the innermost call that passes it;
never both. Each case of the suite's ``placement`` section pins one side of that rule; the
test below fails if any defect of any section is reported at two places, one of them in a
function the other's call goes through (inside the method and at the call that runs it; at
the call that passes the stream and at a call above it). Sibling calls that each pass the
stream or each run the operation are each a call to change
(:func:`~tests.conformance.placement.reported_twice`).
"""

from __future__ import annotations

from functools import cache

import pytest

from tests.conformance.placement import Key, defect, enclosing, reported_twice
from tests.conformance.suite import FIXTURES, Measurement

#: One worker measures the suite for both modules (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("conformance-measured")


@cache
def _source(path: str) -> str:
    return (FIXTURES / path).read_text(encoding="utf-8")


def _function_of(key: Key) -> str:
    return enclosing(_source(key[0]), key[1])


def test_no_defect_of_the_suite_is_reported_at_two_places(measured: Measurement) -> None:
    assert len(measured.messages) == len(measured.cli) > 300
    twice = reported_twice(measured.messages, _function_of)
    assert twice == {}, "reported at several places:\n" + "\n".join(
        f"{d}: {places}" for d, places in sorted(twice.items())
    )


_AT_OPERATION = (
    "XST101 synchronize() on ExternalStream 'self.stream' (returned by make_stream() line 12) "
    "is not supported by torch_npu"
)
_AT_CALL = (
    "XST101 job.process() calls synchronize() on self.stream (jobs.py:15), and synchronize() "
    "on ExternalStream 'job.stream' (returned by make_stream() line 12) is not supported"
)


def test_a_call_reaching_an_operation_reported_there_is_the_same_defect() -> None:
    operation = ("placement/jobs.py", 15, "XST101")
    call = ("placement/jobs.py", 21, "XST101")
    assert defect(call, _AT_CALL) == defect(operation, _AT_OPERATION)
    functions = {operation: "Job.process", call: "main"}
    assert reported_twice({operation: _AT_OPERATION, call: _AT_CALL}, functions.get) == {
        ("XST101", "placement/jobs.py", 15, "returned by make_stream() line 12"): [
            operation,
            call,
        ]
    }


def test_sibling_calls_passing_one_stream_are_each_a_call_to_change() -> None:
    source = "def wait(a):\n    a.synchronize()\n\n\ndef main(ext):\n    wait(ext)\n    wait(ext)\n"
    assert enclosing(source, 2) == "wait" and enclosing(source, 7) == "main"
    message = "XST101 wait() calls synchronize() on its argument 'a' (m.py:2), and (created line 9)"
    first, second = ("m.py", 6, "XST101"), ("m.py", 7, "XST101")
    messages = {first: message, second: message}
    assert defect(first, message) == defect(second, message)  # one defect at two calls,
    assert reported_twice(messages, lambda key: enclosing(source, key[1])) == {}  # each one


def test_two_streams_reaching_one_operation_are_two_defects() -> None:
    first = ("p/a.py", 11, "XST101")
    second = ("p/a.py", 15, "XST101")
    messages = {
        first: "XST101 drain() calls synchronize() on its argument 'stream' (a.py:7), and "
        "synchronize() on an ExternalStream (created line 11) is not supported",
        second: "XST101 drain() calls synchronize() on its argument 'stream' (a.py:7), and "
        "synchronize() on an ExternalStream (created line 15) is not supported",
    }
    assert defect(first, messages[first])[:3] == ("XST101", "p/a.py", 7)
    assert reported_twice(messages, lambda key: "main") == {}
