"""Process groups of one live rank that check the current stream like ``ProcessGroupHCCL``.

On torch_npu a process group is a plain C++ ``torch.distributed.ProcessGroup`` whose HCCL
backend lives in C++, and the works it returns reach Python as plain ``torch.distributed.Work``
objects (torch_npu binds no ``WorkHCCL`` class; ``type(work) is dist.Work``). The simulation
keeps both facts:

* :func:`new_group` returns a real ``dist.ProcessGroup`` (no Python subclass), so torch's
  functions and a user's ``pg.allreduce([t])`` reach the very methods the guard wraps;
* the works are real base ``dist.Work`` objects (``_create_work_from_future``).

What the C++ backend would do inside those methods cannot be written in C here, so
:func:`activate` replaces the ``ProcessGroup`` methods and ``Work.wait`` / ``synchronize`` with
Python functions that do it (and hand groups/works they do not know to the real methods);
:func:`deactivate` puts the real ones back. Like ``ProcessGroupHCCL::collective`` a collective
first bumps the group's sequence counter, then refuses NPU tensors whose device has an external
current stream (X19 / X20); point-to-point and coalesced ops fail in the event record of
``syncStreams`` (X03); waiting on an HCCL work blocks its end event on the current stream (X04).
A "gloo" group serves everything without checks.

torch_npu's own ``torch_npu.distributed`` functions are stand-ins with the wheel's signatures
whose frames belong to module ``torch_npu.distributed.distributed_c10d``, as the real ones do.
"""

from __future__ import annotations

import types
import weakref
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.distributed as dist
from torch._C._distributed_c10d import _create_work_from_future

from extstream_lint.contract import native_not_supported

from . import fake_c
from .patching import MISSING, Patches

NPU = "npu"

#: ProcessGroup methods the simulated backend serves (torch 2.13 names).
COLLECTIVE_METHODS = (
    "allreduce", "broadcast", "reduce", "allgather", "_allgather_base", "all_gather_single",
    "reduce_scatter", "_reduce_scatter_base", "reduce_scatter_single", "alltoall",
    "alltoall_base", "all_to_all_single", "gather", "scatter", "barrier",
)  # fmt: skip
#: Methods that fail in ``syncStreams``' event record instead (ProcessGroupHCCL.cpp:260).
EVENT_RECORD_METHODS = (
    "send", "recv", "recv_anysource", "allreduce_coalesced", "allgather_coalesced",
    "allgather_into_tensor_coalesced", "reduce_scatter_tensor_coalesced",
)  # fmt: skip


@dataclass
class GroupState:
    """What the C++ backend of one simulated group remembers."""

    backend: str
    seq: int = 0
    calls: list[str] = field(default_factory=list)


_groups: dict[int, tuple[Any, GroupState]] = {}
#: HCCL works not yet collected: id -> (weak reference, devices).
_works: dict[int, tuple[weakref.ref[Any], tuple[int, ...]]] = {}
_patches = Patches()


def new_group(backend: str = "hccl") -> Any:
    """A real ``dist.ProcessGroup`` (rank 0 of 2, so point-to-point has a peer)."""
    group = dist.ProcessGroup(dist.HashStore(), 0, 2)
    _groups[id(group)] = (group, GroupState(backend))
    return group


def state(group: Any) -> GroupState:
    """The simulated backend state of ``group`` (sequence counter, served calls)."""
    return _groups[id(group)][1]


def _state_of(group: Any) -> GroupState | None:
    entry = _groups.get(id(group))
    return entry[1] if entry is not None and entry[0] is group else None


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


def _work(devices: list[int], result: Any = None) -> Any:
    """A base ``dist.Work`` (what C++ backends hand to Python), remembered if HCCL's."""
    future = torch.futures.Future()
    future.set_result(result)
    work = _create_work_from_future(future)
    if devices:
        key = id(work)
        _works[key] = (weakref.ref(work, lambda r, key=key: _works.pop(key, None)), tuple(devices))
    return work


def _serve(group_state: GroupState, name: str, args: tuple[Any, ...], record: bool) -> Any:
    """``ProcessGroupHCCL::collective`` / ``pointToPoint``: counters first, then the check."""
    group_state.seq += 1  # ProcessGroupHCCL.cpp:4036-4038
    if group_state.backend == "gloo":
        group_state.calls.append(name)
        return _work([])
    devices = _devices(args)
    if name == "barrier":  # an all-reduce of a one-element tensor on the current device
        devices = [fake_c.STATE.device()]
    for device in devices:
        if record:  # syncStreams: hcclEvent.record(getCurrentNPUStream(dev))
            if fake_c._is_ext(fake_c.STATE.current(device)):
                raise RuntimeError(native_not_supported("NPUEvent::record") + fake_c._suffix(7))
        else:
            api = f"ProcessGroup{group_state.backend.upper()}::collective"
            fake_c.check_current_not_external(device, api)
    group_state.calls.append(name)
    return _work(devices)


def _method(name: str, record: bool) -> Any:
    real = vars(dist.ProcessGroup).get(name, MISSING)

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        group_state = _state_of(self)
        if group_state is None:
            if real is MISSING:
                raise AttributeError(name)
            return real(self, *args, **kwargs)
        return _serve(group_state, name, (*args, *kwargs.values()), record)

    method.__name__ = method.__qualname__ = name
    return method


def _wait(real: Any) -> Any:
    def wait(self: Any, *args: Any, **kwargs: Any) -> Any:
        entry = _works.get(id(self))
        if entry is not None and entry[0]() is self:  # WorkHCCL::synchronizeInternal
            for device in entry[1]:
                if fake_c._is_ext(fake_c.STATE.current(device)):
                    raise RuntimeError(native_not_supported("NPUEvent::block") + fake_c._suffix(7))
        return real(self, *args, **kwargs)

    wait.__name__ = wait.__qualname__ = real.__name__
    return wait


def activate() -> None:
    """Put the simulated C++ behaviour into ``ProcessGroup`` and ``Work`` (undone below)."""
    if _patches:
        return
    for name in COLLECTIVE_METHODS:
        _patches.set(dist.ProcessGroup, name, _method(name, record=False))
    for name in EVENT_RECORD_METHODS:
        _patches.set(dist.ProcessGroup, name, _method(name, record=True))
    for name in ("wait", "synchronize"):
        _patches.set(dist.Work, name, _wait(vars(dist.Work)[name]))


def deactivate() -> None:
    _patches.undo()


def register(group: Any) -> None:
    """Make ``dist.get_backend`` / rank translation know ``group`` (as init would)."""
    world = dist.distributed_c10d._world
    world.pg_map[group] = (state(group).backend, None)
    world.pg_group_ranks[group] = {0: 0, 1: 1}


def unregister(group: Any) -> None:
    world = dist.distributed_c10d._world
    world.pg_map.pop(group, None)
    world.pg_group_ranks.pop(group, None)
    _groups.pop(id(group), None)


# --- torch_npu.distributed (distributed_c10d.py), with the wheel's signatures ----------------


def _backend_call(group: Any, name: str, *args: Any) -> Any:
    """``group._get_backend(torch.device("npu")).<name>(...)``: torch_npu's C++ binding."""
    group_state = _state_of(group)
    if group_state is None:
        raise RuntimeError(f"simulated torch_npu: {group!r} is not a simulated process group")
    return _serve(group_state, name, args, record=False)


def _finish(work: Any, async_op: bool) -> Any:
    if async_op:
        return work
    work.wait()
    return None


def _reduce_scatter_tensor_uneven(
    output: Any, input: Any, input_split_sizes: Any = None, op: Any = dist.ReduceOp.SUM,
    group: Any = None, async_op: bool = False,
) -> Any:  # fmt: skip
    return _finish(_backend_call(group, "reduce_scatter_tensor_uneven", output, input), async_op)


def _all_gather_into_tensor_uneven(
    output: Any, input: Any, output_split_sizes: Any = None, group: Any = None,
    async_op: bool = False,
) -> Any:  # fmt: skip
    return _finish(_backend_call(group, "all_gather_into_tensor_uneven", output, input), async_op)


def _all_to_all_vc(
    output: Any, input: Any, send_count_matrix: Any, group: Any = None, async_op: bool = False
) -> Any:
    return _finish(_backend_call(group, "alltoallvc", output, input), async_op)


def _gather(
    tensor: Any, gather_list: Any = None, dst: int = 0, group: Any = None, async_op: bool = False
) -> Any:
    return dist.distributed_c10d.gather(tensor, gather_list, dst, group, async_op)


def _gather_object(
    obj: Any, object_gather_list: Any = None, dst: Any = None, group: Any = None,
    group_dst: Any = None,
) -> Any:  # fmt: skip
    return dist.distributed_c10d.gather_object(obj, object_gather_list, dst, group, group_dst)


def _batch_isend_irecv(p2p_op_list: Any) -> Any:
    return dist.distributed_c10d.batch_isend_irecv(p2p_op_list)


_C10D_NAME = "torch_npu.distributed.distributed_c10d"


def npu_distributed_functions() -> dict[str, Any]:
    """The stand-ins above, as functions of module ``torch_npu.distributed.distributed_c10d``."""
    namespace = dict(globals(), __name__=_C10D_NAME)
    functions = {}
    for function in (
        _reduce_scatter_tensor_uneven, _all_gather_into_tensor_uneven, _all_to_all_vc, _gather,
        _gather_object, _batch_isend_irecv,
    ):  # fmt: skip
        copy = types.FunctionType(
            function.__code__, namespace, function.__name__, function.__defaults__
        )
        copy.__module__ = _C10D_NAME
        copy.__qualname__ = function.__qualname__
        functions[function.__name__] = copy
    return functions
