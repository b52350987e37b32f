"""Two-way tensor parallel layer, replicas and host logging."""

from typing import List

import torch
from torch import nn

from .mesh import Mesh


class ColumnParallel(nn.Module):
    def __init__(self, dim: int, mesh: Mesh):
        super().__init__()
        self.mesh = mesh
        self.left = nn.Linear(dim, dim // 2).to("npu:0")
        self.right = nn.Linear(dim, dim // 2).to("npu:1")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.left(x.to("npu:0"))
        b = self.right(x.to("npu:1"))
        with torch.npu.stream(self.mesh.links[1]):
            merged = torch.cat([a, b.to("npu:0", non_blocking=True)], dim=-1)  # expect: XST112
        return merged

    def forward_own(self, x: torch.Tensor) -> torch.Tensor:
        a = self.left(x.to("npu:0"))
        b = self.right(x.to("npu:1"))
        with torch.npu.stream(self.mesh.own[1]):
            merged = torch.cat([a, b.to("npu:0", non_blocking=True)], dim=-1)
        return merged


class Replicas:
    def __init__(self, make, mesh: Mesh):
        self.mesh = mesh
        self.r0 = make().to("npu:0")
        self.r1 = make().to("npu:1")

    # average replica 1's gradients into replica 0 while npu:0's link is current
    def reduce_into_first(self) -> None:
        with torch.npu.stream(self.mesh.links[0]):
            for p0, p1 in zip(self.r0.parameters(), self.r1.parameters(), strict=True):
                p0.grad.add_(p1.grad.to(p0.device, non_blocking=True))  # expect: XST112
                p0.grad.mul_(0.5)

    def reduce_into_first_drained(self) -> None:
        torch.npu.synchronize(1)
        for p0, p1 in zip(self.r0.parameters(), self.r1.parameters(), strict=True):
            p0.grad.add_(p1.grad.to(p0.device))
            p0.grad.mul_(0.5)

    # scale in place on each device under its own link: no copy at all
    def scale_on_links(self, factor: float) -> None:
        for rank, rep in enumerate([self.r0, self.r1]):
            with torch.npu.stream(self.mesh.links[rank]):
                for p in rep.parameters():
                    p.grad.mul_(factor)


def log_outputs(mesh: Mesh, outs: List[torch.Tensor]) -> List[float]:
    last = outs[-1].to(f"npu:{mesh.world - 1}")
    with torch.npu.stream(mesh.links[mesh.world - 1]):
        host = last.to("cpu", non_blocking=True)  # expect: XST201
    return host.tolist()


def log_first(mesh: Mesh, outs: List[torch.Tensor]) -> List[float]:
    first = outs[0].to("npu:0")
    with torch.npu.stream(mesh.links[1]):
        host = first.to("cpu", non_blocking=True)
    return host.tolist()


def log_blocking(mesh: Mesh, outs: List[torch.Tensor]) -> List[float]:
    last = outs[-1].to(f"npu:{mesh.world - 1}")
    with torch.npu.stream(mesh.links[mesh.world - 1]):
        host = last.cpu()
    return host.tolist()
