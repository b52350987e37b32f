"""The same scenario table on real Ascend hardware.

Marked ``npu``: skipped, with the reason, wherever ``torch_npu`` cannot be imported or has no
device. External streams wrap the raw handle of a torch_npu-managed stream (torch_npu accepts
that and registers an external alias, contract section 4.2), so no other runtime library is
needed. Collectives run on a one-rank HCCL group initialised here; point-to-point scenarios need
a peer and are skipped.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.guard.scenarios import SCENARIOS, Env, Scenario, check

pytestmark = pytest.mark.npu


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def hardware() -> Iterator[Env]:
    try:
        import torch_npu
    except Exception as exc:  # ImportError, or OSError/RuntimeError without CANN
        pytest.skip(f"needs torch_npu on an Ascend NPU with CANN ({type(exc).__name__}: {exc})")
    import torch
    import torch.distributed as dist

    if not torch_npu.npu.is_available():
        pytest.skip("torch_npu imports but reports no NPU device")
    owners: dict[int, Any] = {}

    def pointer(k: int) -> int:
        if k not in owners:
            owners[k] = torch_npu.npu.Stream()  # kept alive: its handle is the "external" one
        return int(owners[k].npu_stream)

    group = cpu_group = None
    started = False
    if dist.is_available() and not dist.is_initialized():
        try:
            dist.init_process_group(
                "hccl", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1
            )
            started = True
            group = dist.group.WORLD
            cpu_group = dist.new_group(backend="gloo")
        except Exception:  # no HCCL here: the collective scenarios skip with their reason
            group = cpu_group = None
    try:
        yield Env(
            torch, torch_npu, pointer=pointer,
            tensor=lambda: torch.tensor([1.0, 2.0, 3.0, 4.0], device="npu"), group=group,
            cpu_group=cpu_group,
        )  # fmt: skip
    finally:
        import extstream_guard

        extstream_guard.uninstall()
        if started:
            dist.destroy_process_group()


@pytest.mark.parametrize("mode", ["off", "raise", "warn"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_scenario_on_hardware(hardware: Env, scenario: Scenario, mode: str) -> None:
    import torch_npu

    torch_npu.npu.synchronize()
    before = torch_npu.npu.current_stream()
    try:
        check(hardware, scenario, mode)
    finally:
        torch_npu.npu.set_stream(before)  # a failed capture may leave the stream switched
