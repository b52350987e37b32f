"""The README's ``pytest -n 2`` keeps each ``xdist_group`` in one worker (tests/conftest.py).

A split group is not an error pytest reports: the conformance measurement then runs in both
workers, and the two release-build tests stage the sdist into one directory at once. So a
grouped test checks the name xdist gave it, which is what the controller groups by.
"""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("scheduling-probe")
def test_a_grouped_test_is_named_for_its_group(request: pytest.FixtureRequest) -> None:
    grouped = getattr(request.config, "workerinput", {}).get("extstream_loadgroup", False)
    suffix = "@scheduling-probe"
    if grouped:  # a worker of `pytest -n N`: xdist must have named the test for its group
        assert request.node.nodeid.endswith(suffix), request.node.nodeid
    else:  # one process: nothing renames it
        assert not request.node.nodeid.endswith(suffix), request.node.nodeid
