"""Fixtures for the guard tests: the simulated torch_npu, activated per test.

The simulation is built once per session from the torch-npu wheel (downloaded into ``.cache/``
by ``tests/_npu_wheel.py``) and put into ``sys.modules`` only while a test that asks for it
runs, so no other test ever sees a ``torch_npu``. Every test leaves the guard uninstalled.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import _npu_wheel  # noqa: E402
from tests._skips import NO_TORCH  # noqa: E402
from tests.guard._wheels import wheel_tree  # noqa: E402


@pytest.fixture(scope="session")
def sim_build() -> Any:
    """The simulation over the Python files of ``$EXTSTREAM_NPU_SIM_VERSION`` (default: the
    release the contract was written from); ``tests/guard/check_releases.py`` sets it."""
    # the simulated torch_npu subclasses torch's real Stream and Event types
    pytest.importorskip("torch", reason=NO_TORCH)
    from tests.guard import npusim

    version = _npu_wheel.sim_version()
    return npusim.build(wheel_tree(version), version)


@pytest.fixture
def sim(sim_build: Any) -> Iterator[Any]:
    """The simulated torch_npu, importable for this test only, with fresh C-layer state."""
    import gc

    import extstream_guard
    from tests.guard import npusim
    from tests.guard.npusim import memory

    sim_build.state.reset()
    npusim.activate(sim_build)
    terminated: list[str] = []
    memory.terminate = terminated.append  # an abort fails this test, not the whole worker
    recorded = memory.RECORDS[0]
    # the test's gc.collect() calls, and this one, walk only what the test made
    with memory.only_new_objects_collected():
        try:
            yield sim_build
        finally:
            extstream_guard.uninstall()
            npusim.deactivate()
            # The test's tensors die here, and a deferred abort with them; only a recorded
            # event can abort at a free, so only then is garbage collected.
            if memory.RECORDS[0] != recorded:
                gc.collect()
            memory.terminate = memory.abort
    assert not terminated, f"the simulated torch_npu would have aborted: {terminated[0]}"


@pytest.fixture
def env(sim: Any) -> Iterator[Any]:
    """A scenario :class:`Env` over the simulation, with one-rank HCCL, LCCL and gloo groups."""
    import torch

    from tests.guard import npusim
    from tests.guard.npusim import fake_dist
    from tests.guard.scenarios import Env

    groups = {name: fake_dist.new_group(name) for name in ("hccl", "lccl", "gloo")}
    for group in groups.values():
        fake_dist.register(group)
    try:
        yield Env(
            torch,
            sim.torch_npu,
            pointer=lambda k: 0x7A00_0000 + 0x1000 * k,
            tensor=npusim.npu_tensor,
            group=groups["hccl"],
            lccl_group=groups["lccl"],
            cpu_group=groups["gloo"],
            p2p=True,
        )
    finally:
        for group in groups.values():
            fake_dist.unregister(group)
