"""Forward through the stages; activations hop between NPUs."""

from typing import List

import torch

from .mesh import Mesh
from .stages import Stage, build, device_of


class Pipeline:
    def __init__(self, handles: List[int], dim: int = 1024):
        self.mesh = Mesh(handles)
        self.stages: List[Stage] = build(self.mesh.world, dim)

    # each stage runs on its device's link stream; the hop to the next device too
    def forward_on_links(self, x: torch.Tensor) -> torch.Tensor:
        x = x.to("npu:0")
        for k in range(self.mesh.world - 1):
            with torch.npu.stream(self.mesh.links[k]):
                y = self.stages[k](x)
                x = y.to(f"npu:{k + 1}", non_blocking=True)  # expect: XST112
        return self.stages[-1](x)

    # the same hops on streams torch_npu made
    def forward_on_own(self, x: torch.Tensor) -> torch.Tensor:
        x = x.to("npu:0")
        for k in range(self.mesh.world - 1):
            with torch.npu.stream(self.mesh.own[k]):
                y = self.stages[k](x)
                x = y.to(f"npu:{k + 1}", non_blocking=True)
        return self.stages[-1](x)

    # compute on the link, hop after the link is left and the device drained
    def forward_drained(self, x: torch.Tensor) -> torch.Tensor:
        x = x.to("npu:0")
        for k in range(self.mesh.world - 1):
            with torch.npu.stream(self.mesh.links[k]):
                y = self.stages[k](x)
            torch.npu.synchronize(k)
            x = y.to(f"npu:{k + 1}")
        return self.stages[-1](x)

    # the destination's link is current: the receiving side waits on an event there
    def hand_to_stage(self, k: int, x: torch.Tensor) -> torch.Tensor:
        y = self.stages[k](x.to(f"npu:{k}"))
        with torch.npu.stream(self.mesh.link(k + 1)):
            z = y.to(device_of(self.stages[k + 1]), non_blocking=True)  # expect: XST112
        return z

    def hand_to_stage_same_device(self, k: int, x: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.mesh.link(k)):
            y = self.stages[k](x.to(f"npu:{k}"))
            z = y.to(device_of(self.stages[k]), non_blocking=True)
        return z

    # a receive buffer allocated under torch.npu.device(k): it lives on npu:k
    def receive(self, k: int, x: torch.Tensor) -> torch.Tensor:
        act = self.stages[k - 1](x.to(self.mesh.devices[k - 1]))
        with torch.npu.device(k), torch.npu.stream(self.mesh.links[k]):
            recv = torch.empty(act.shape, dtype=act.dtype, device="npu")
            recv.copy_(act, non_blocking=True)  # expect: XST112
        return recv

    def receive_local(self, k: int, x: torch.Tensor) -> torch.Tensor:
        act = self.stages[k](x.to(self.mesh.devices[k]))
        with torch.npu.device(k), torch.npu.stream(self.mesh.links[k]):
            recv = torch.empty(act.shape, dtype=act.dtype, device="npu")
            recv.copy_(act, non_blocking=True)
        return recv

    # a copy between npu:0 and npu:2 while only npu:1's link is current
    def skip_connection(self, x: torch.Tensor) -> torch.Tensor:
        a = self.stages[0](x.to("npu:0"))
        with torch.npu.stream(self.mesh.links[1]):
            b = a.to("npu:2", non_blocking=True)
        return b

    def first_hop_by_index(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stages[0](x.npu(0))
        with torch.npu.stream(self.mesh.links[0]):
            return h.npu(1, non_blocking=True)  # expect: XST112
