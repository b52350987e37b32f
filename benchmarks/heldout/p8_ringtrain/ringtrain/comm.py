"""Communication context: the algorithm picks the stream it runs on."""

import enum
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
import torch_npu

from .bank import StreamBank, side_stream
from .handles import ring_stream_ptr


class Algo(enum.Enum):
    NATIVE = "hccl"
    RING = "ring"

    def stream(self, device: int):
        if self is Algo.RING:
            return StreamBank(device).comm
        return side_stream(device)


@dataclass
class CommContext:
    device: int = 0
    bucket_mb: int = 25
    stream: object = field(init=False)

    def __post_init__(self) -> None:
        self.stream = torch_npu.npu.ExternalStream(ring_stream_ptr(self.device), device=self.device)

    def reduce(self, t: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.stream):
            dist.all_reduce(t)  # expect: XST111
        return t

    def reduce_outside(self, t: torch.Tensor) -> torch.Tensor:
        dist.all_reduce(t)
        torch.npu.synchronize()
        return t


def reduce_with(algo: Algo, t: torch.Tensor, device: int = 0) -> torch.Tensor:
    with torch.npu.stream(algo.stream(device)):
        dist.all_reduce(t)  # maybe: XST111
    return t
