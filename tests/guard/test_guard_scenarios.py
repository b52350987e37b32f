"""Every row of the scenario table, guard off / raise / warn, over the simulated torch_npu."""

from __future__ import annotations

from typing import Any

import pytest

from tests.guard.scenarios import SCENARIOS, Scenario, check


@pytest.mark.parametrize("mode", ["off", "raise", "warn"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario(env: Any, sim: Any, scenario: Scenario, mode: str) -> None:
    reads = sim.state.npu_stream_reads
    check(env, scenario, mode)
    if mode != "off" and not scenario.reads_npu_stream:
        # The guard must never read npu_stream: it drains the task queue (and raises under
        # PER_STREAM_QUEUE=1). Nothing in these scenarios reads it either.
        assert sim.state.npu_stream_reads == reads


def test_table_covers_every_rule_the_guard_raises() -> None:
    from extstream_guard.patches import POINTS

    expected = {point.code for point in POINTS} | {"XST001", "XST002", "XST103"}
    assert expected <= {s.code for s in SCENARIOS}
    assert any(s.code is None for s in SCENARIOS)
