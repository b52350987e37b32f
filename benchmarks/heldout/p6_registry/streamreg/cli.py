"""Command line: `python -m streamreg.cli --backend vendor --device 0`."""

import argparse
import enum
from typing import NamedTuple

import torch

from .jobs import Jobs
from .plugins import Backend, PinnedVendorBackend
from .pool import DevicePool


class Preset(NamedTuple):
    backend: str
    overlap: bool = True
    device: int = 0


class Profile(enum.Enum):
    LOCAL = Preset("native")
    FAST = Preset("native-hi")
    OFFLOAD = Preset("vendor", overlap=False)


def run_backend(preset: Preset, x: torch.Tensor) -> torch.Tensor:
    backend = Backend.create(preset.backend, preset.device)
    y = backend.launch(torch.relu, x)
    backend.drain()  # maybe: XST101
    return y


def offload_step(x: torch.Tensor) -> torch.Tensor:
    backend = Backend.create("vendor", 0)
    y = backend.launch(torch.relu, x)
    if backend.fence() is not None:
        y = y.clone()
    backend.drain()  # expect: XST101
    return y


def local_step(x: torch.Tensor) -> torch.Tensor:
    backend = Backend.create("native", 0)
    y = backend.launch(torch.relu, x)
    backend.fence().synchronize()
    backend.drain()
    return y


def warm(device: int) -> None:
    pool = DevicePool.for_device(device)
    pool.sync()
    pool.mark("h2d")
    pool.mark("hccl")  # expect: XST103
    pool.get("hccl").synchronize()  # expect: XST101
    torch.npu.synchronize()


def stage(host: torch.Tensor) -> torch.Tensor:
    return PinnedVendorBackend(0).prefetch(host)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", choices=[p.name.lower() for p in Profile], default="local")
    args = ap.parse_args(argv)
    preset = Profile[args.profile.upper()].value
    x = torch.randn(1024, device=f"npu:{preset.device}")
    run_backend(preset, x)  # expect: XST101
    jobs = Jobs(preset.device)
    jobs.reduce_local(x)
    jobs.finish()


def main_local() -> None:
    x = torch.randn(16, device="npu:0")
    run_backend(Profile.LOCAL.value, x)
    run_backend(Profile.FAST.value, x)
