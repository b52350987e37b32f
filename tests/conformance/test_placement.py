"""One finding per defect, over the whole conformance suite (issue 38, family 2).

A defect is one refused operation site reached by one external stream, whatever call chains
reach it (:mod:`tests.conformance.placement` reads both from the finding's message: the
operation's line, which a call's finding names as ``(file.py:line)``, and the stream's
origin). The rule: at the operation when what makes the value external is known without the
caller (the function's own code, its class's guarantee, a module global); at a call only when
the caller's argument makes it external, and then at the innermost call that passes it;
never both. Each case of the suite's ``placement`` section pins one side of that rule; the
test below fails if any defect of any section is reported at two places.
"""

from __future__ import annotations

from tests.conformance.placement import defect, reported_twice
from tests.conformance.suite import Measurement


def test_no_defect_of_the_suite_is_reported_at_two_places(measured: Measurement) -> None:
    assert len(measured.messages) == len(measured.cli) > 300
    twice = reported_twice(measured.messages)
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
    assert reported_twice({operation: _AT_OPERATION, call: _AT_CALL}) == {
        ("XST101", "placement/jobs.py", 15, "returned by make_stream() line 12"): [
            operation,
            call,
        ]
    }


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
    assert reported_twice(messages) == {}
