"""Lanes: the communication library's streams, or torch_npu's, picked by mixins."""

import ctypes

import torch
import torch.distributed as dist
import torch_npu  # noqa: F401

_hcomm = ctypes.CDLL("libhcomm_lanes.so")
_hcomm.hcomm_lane_get.restype = ctypes.c_void_p


def comm_lane_handle(rank: int) -> int:
    return _hcomm.hcomm_lane_get(rank)


class WorkerBase:
    __slots__ = ("_lane", "device", "tag")

    def __init__(self, device: int = 0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.device = device
        self._lane = self.make_lane(device)

    def make_lane(self, device: int) -> "torch.npu.Stream":
        raise NotImplementedError

    def flush(self) -> None:
        self._lane.synchronize()

    def idle(self) -> bool:
        return self._lane.query()


class ManagedLaneMixin:
    __slots__ = ()

    def make_lane(self, device: int) -> "torch.npu.Stream":
        return torch.npu.Stream(device=device)


class CommLaneMixin:
    __slots__ = ()

    def make_lane(self, device: int) -> "torch.npu.ExternalStream":
        return torch.npu.ExternalStream(comm_lane_handle(device), device=device)

    def barrier(self) -> None:
        with torch.npu.stream(self._lane):
            dist.barrier()  # expect: XST111


class TaggedMixin:
    __slots__ = ()

    def __init__(self, *, tag: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.tag = tag


class CommWorker(CommLaneMixin, TaggedMixin, WorkerBase):
    __slots__ = ()


class ComputeWorker(ManagedLaneMixin, TaggedMixin, WorkerBase):
    __slots__ = ()


def drain_workers(rank: int) -> None:
    comm = CommWorker(device=rank, tag="grads")
    compute = ComputeWorker(device=rank, tag="fwd")
    comm.flush()  # expect: XST101
    compute.flush()
    if compute.idle() and comm.idle():  # expect: XST102
        return
