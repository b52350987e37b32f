"""A process group of one live rank that checks the current stream like ``ProcessGroupHCCL``.

``SimProcessGroup`` is a Python subclass of ``torch.distributed.ProcessGroup`` (torch calls its
methods directly: ``dist.all_reduce(t, group=pg)`` -> ``pg.allreduce([t], opts)``). Like
``ProcessGroupHCCL::collective`` it first bumps its sequence counter, then refuses NPU tensors
whose device has an external current stream (X19 / X20); point-to-point ops fail in the event
record of ``syncStreams`` (X03); ``SimWork.wait()`` blocks its end event on the current stream
(X04). CPU tensors are served without checks, as gloo would.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from extstream_lint.contract import native_not_supported

from . import fake_c

NPU = "npu"


def _devices(tensors: Any) -> list[int]:
    found: list[int] = []
    stack = [tensors]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, torch.Tensor) and item.device.type == NPU:
            index = fake_c.STATE.device() if item.device.index is None else item.device.index
            if index not in found:
                found.append(index)
    return found


class SimWork(dist.Work):
    """``WorkHCCL``: ``wait``/``synchronize`` block the end event on the current stream."""

    def __init__(self, devices: list[int]) -> None:
        super().__init__()
        self.devices = devices

    def wait(self, timeout: Any = None) -> bool:
        for device in self.devices:
            if fake_c._is_ext(fake_c.STATE.current(device)):
                raise RuntimeError(native_not_supported("NPUEvent::block") + fake_c._suffix(7))
        return True

    def synchronize(self) -> None:
        self.wait()

    def is_completed(self) -> bool:
        return True


class SimCPUWork(dist.Work):
    """What a gloo group returns: never touches NPU streams."""

    def wait(self, timeout: Any = None) -> bool:
        return True


class SimProcessGroup(dist.ProcessGroup):
    """Rank 0 of 2 (only rank 0 exists); ``backend``: "hccl" / "lccl" (X19 / X20) or "gloo"."""

    def __init__(self, backend: str = "hccl") -> None:
        super().__init__(0, 2)  # two ranks, so point-to-point has a peer
        self.backend = backend
        self.seq = 0
        self.calls: list[str] = []

    def _collective(self, name: str, *tensor_args: Any) -> SimWork:
        self.seq += 1  # ProcessGroupHCCL.cpp:4036-4038: counters first, then the check
        devices = _devices(tensor_args)
        api = "ProcessGroupLCCL::collective" if self.backend == "lccl" else (
            "ProcessGroupHCCL::collective")  # fmt: skip
        for device in devices:
            fake_c.check_current_not_external(device, api)
        self.calls.append(name)
        return SimCPUWork() if self.backend == "gloo" else SimWork(devices)

    def _point_to_point(self, name: str, tensors: Any) -> SimWork:
        self.seq += 1
        devices = _devices(tensors)
        for device in devices:  # syncStreams: hcclEvent.record(getCurrentNPUStream(dev))
            if fake_c._is_ext(fake_c.STATE.current(device)):
                raise RuntimeError(native_not_supported("NPUEvent::record") + fake_c._suffix(7))
        self.calls.append(name)
        return SimWork(devices)

    def allreduce(self, tensors: Any, opts: Any = None) -> SimWork:
        return self._collective("allreduce", tensors)

    def broadcast(self, tensors: Any, opts: Any = None) -> SimWork:
        return self._collective("broadcast", tensors)

    def reduce(self, tensors: Any, opts: Any = None) -> SimWork:
        return self._collective("reduce", tensors)

    def allgather(self, outputs: Any, inputs: Any, opts: Any = None) -> SimWork:
        return self._collective("allgather", outputs, inputs)

    def _allgather_base(self, output: Any, input: Any, opts: Any = None) -> SimWork:
        return self._collective("_allgather_base", output, input)

    def all_gather_single(self, output: Any, input: Any, opts: Any = None) -> SimWork:
        return self._collective("all_gather_single", output, input)

    def reduce_scatter_single(self, output: Any, input: Any, opts: Any = None) -> SimWork:
        return self._collective("reduce_scatter_single", output, input)

    def reduce_scatter(self, outputs: Any, inputs: Any, opts: Any = None) -> SimWork:
        return self._collective("reduce_scatter", outputs, inputs)

    def _reduce_scatter_base(self, output: Any, input: Any, opts: Any = None) -> SimWork:
        return self._collective("_reduce_scatter_base", output, input)

    def barrier(self, opts: Any = None) -> SimWork:
        # HCCL's barrier is an all-reduce of a one-element tensor on the current device.
        return self._collective("barrier", torch.empty(0, device="meta"), _CurrentDevice())

    def send(self, tensors: Any, dst: int, tag: int = 0) -> SimWork:
        return self._point_to_point("send", tensors)

    def recv(self, tensors: Any, src: int, tag: int = 0) -> SimWork:
        return self._point_to_point("recv", tensors)

    def all_gather_into_tensor_uneven(self, output: Any, input: Any, sizes: Any) -> SimWork:
        return self._collective("all_gather_into_tensor_uneven", output, input)

    def name(self) -> str:
        return self.backend


class _CurrentDevice(list):
    """Marks "the current device" for ``barrier`` (it has no tensor of its own)."""

    def __init__(self) -> None:
        super().__init__([SimNPUTensorPlaceholder()])


class SimNPUTensorPlaceholder(torch.Tensor):
    """Empty tensor reporting the current NPU device, for the barrier's implicit buffer."""

    def __new__(cls) -> Any:
        return torch.Tensor._make_subclass(cls, torch.empty(0))

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return torch.device(NPU, fake_c.STATE.device())


def register(group: SimProcessGroup) -> None:
    """Make ``dist.get_backend`` / rank translation know ``group`` (as init would)."""
    world = dist.distributed_c10d._world
    world.pg_map[group] = (group.backend, None)
    world.pg_group_ranks[group] = {0: 0, 1: 1}


def unregister(group: SimProcessGroup) -> None:
    world = dist.distributed_c10d._world
    world.pg_map.pop(group, None)
    world.pg_group_ranks.pop(group, None)


# --- torch_npu.distributed additions (distributed_c10d.py) -------------------------------------


def _all_gather_into_tensor_uneven(
    output: Any, input: Any, output_split_sizes: Any = None, group: Any = None,
    async_op: bool = False,
) -> Any:  # fmt: skip
    work = group.all_gather_into_tensor_uneven(output, input, output_split_sizes)
    if async_op:
        return work
    work.wait()
    return None
