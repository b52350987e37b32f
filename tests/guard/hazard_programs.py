"""Small programs that hit a deferred hazard; run each in its own process.

    python -m tests.guard.hazard_programs PROGRAM MODE [--hardware]

``MODE`` is ``none`` (no guard), or a guard mode (``raise``, ``warn``). Over the simulated
torch_npu (or the real one with ``--hardware``), unguarded, each program ends the way the
contract says it ends on an NPU: torch_npu accepts the call and the process dies later with
SIGABRT (``std::terminate``) when the memory the call touched is freed. Under the guard in
``raise`` mode the program catches the ``ExternalStreamError`` the guard raises at the call and
prints ``CAUGHT <code>``. Every program prints ``LIVED`` as its last
line if the process survives; markers before it say how far it got.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

#: A pointer the simulated registry accepts as an external stream handle.
HANDLE = 0x7A00_0000


class Hardware:
    """The helpers the programs take from the simulation, on a real NPU: tensors on the
    device, and an external stream wrapping the handle of a managed stream kept alive."""

    def __init__(self, torch: Any, npu: Any) -> None:
        self.torch, self.npu = torch, npu
        self._owner = npu.Stream()

    def external(self) -> Any:
        return self.npu.ExternalStream(int(self._owner.npu_stream))

    def npu_tensor(
        self, values: Any = (1.0, 2.0, 3.0, 4.0), device: int = 0, requires_grad: bool = False
    ) -> Any:
        return self.torch.tensor(values, device=f"npu:{device}", requires_grad=requires_grad)


def pinned_to_npu(torch: Any, npu: Any, sim: Any) -> None:
    """``pinned.to("npu", non_blocking=True)`` under ``torch.npu.stream(ext)``; then the
    pinned tensor is freed."""
    ext = sim.external()
    host = torch.ones(4).pin_memory()
    with npu.stream(ext):
        device = host.to("npu", non_blocking=True)
    print("COPIED", device.device)
    del host  # the last reference: torch_npu's host deleter runs here
    print("FREED")


def npu_to_cpu(torch: Any, npu: Any, sim: Any) -> None:
    """``npu_t.to("cpu", non_blocking=True)`` under ``with ext:``: the result is pinned."""
    ext = sim.external()
    tensor = sim.npu_tensor()
    with ext:
        result = tensor.to("cpu", non_blocking=True)
    print("COPIED", result.device)
    del result
    print("FREED")


def pinned_copy_into_npu(torch: Any, npu: Any, sim: Any) -> None:
    """``npu_t.copy_(pinned, non_blocking=True)`` after ``torch.npu.set_stream(ext)``."""
    ext = sim.external()
    host = torch.ones(4).pin_memory()
    tensor = sim.npu_tensor()
    previous = npu.current_stream()
    npu.set_stream(ext)
    try:
        tensor.copy_(host, non_blocking=True)
    finally:
        npu.set_stream(previous)
    print("COPIED")
    del host
    print("FREED")


def pageable_to_npu(torch: Any, npu: Any, sim: Any) -> None:
    """The safe shape: pageable memory is synchronised instead of recorded."""
    ext = sim.external()
    host = torch.ones(4)
    with npu.stream(ext):
        host.to("npu", non_blocking=True)
    del host
    print("FREED")


_KEPT: list[Any] = []


def pinned_kept_until_exit(torch: Any, npu: Any, sim: Any) -> None:
    """The same copy, but the pinned tensor lives until exit: torch_npu's atexit
    ``_npu_shutdown`` runs first and its allocator then records nothing (no abort)."""
    ext = sim.external()
    _KEPT.append(torch.ones(4).pin_memory())
    with npu.stream(ext):
        _KEPT[0].to("npu", non_blocking=True)
    print("COPIED")


def backward_outside(torch: Any, npu: Any, sim: Any) -> None:
    """Forward under ``ext``, backward outside it: X07, then the root gradient's free aborts."""
    ext = sim.external()
    weight = sim.npu_tensor(requires_grad=True)
    with npu.stream(ext):
        loss = (weight * 2).sum()
    try:
        loss.backward()
    except RuntimeError as exc:
        if type(exc) is not RuntimeError:
            raise
        print("NATIVE", str(exc).splitlines()[0])
    print("AFTER")


def backward_inside(torch: Any, npu: Any, sim: Any) -> None:
    """Forward outside ``ext``, backward under it: X06 at once, and no abort."""
    ext = sim.external()
    weight = sim.npu_tensor(requires_grad=True)
    loss = (weight * 2).sum()
    with npu.stream(ext):
        try:
            loss.backward()
        except RuntimeError as exc:
            if type(exc) is not RuntimeError:
                raise
            print("NATIVE", str(exc).splitlines()[0])
    print("AFTER")


def backward_mixed(torch: Any, npu: Any, sim: Any) -> None:
    """Part of the graph made under ``ext`` (``h = w * 2``), the root and the backward outside:
    the edge into ``h``'s node waits on ext (X07); its gradient, recorded on ext, aborts."""
    ext = sim.external()
    weight = sim.npu_tensor(requires_grad=True)
    with npu.stream(ext):
        hidden = weight * 2
    try:
        hidden.sum().backward()
    except RuntimeError as exc:
        if type(exc) is not RuntimeError:
            raise
        print("NATIVE", str(exc).splitlines()[0])
        del exc
    print("AFTER")


PROGRAMS: dict[str, Callable[[Any, Any, Any], None]] = {
    "backward-mixed": backward_mixed,
    "pinned-to-npu": pinned_to_npu,
    "npu-to-cpu": npu_to_cpu,
    "pinned-copy-into-npu": pinned_copy_into_npu,
    "pageable-to-npu": pageable_to_npu,
    "pinned-kept-until-exit": pinned_kept_until_exit,
    "backward-outside": backward_outside,
    "backward-inside": backward_inside,
}


class Simulated:
    """The simulation's helpers (``npu_tensor``) and a pointer for its registry."""

    def __init__(self, npu: Any) -> None:
        from tests.guard import npusim

        self.npu, self.npu_tensor = npu, npusim.npu_tensor

    def external(self) -> Any:
        return self.npu.ExternalStream(HANDLE)


def main(argv: list[str]) -> int:
    name, mode, *flags = argv
    import torch

    helpers: Any
    if "--hardware" in flags:
        import torch_npu

        npu = torch_npu.npu
        helpers = Hardware(torch, npu)
    else:
        from tests import _npu_wheel
        from tests.guard import npusim

        version = _npu_wheel.sim_version()
        sim = npusim.build(_npu_wheel.python_tree(version), version)
        npusim.activate(sim)
        npu = sim.torch_npu.npu
        helpers = Simulated(npu)
    import extstream_guard

    if mode != "none":
        extstream_guard.install(mode)
    try:
        PROGRAMS[name](torch, npu, helpers)
    except extstream_guard.ExternalStreamError as exc:
        print("CAUGHT", exc.code)
    print("LIVED", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
