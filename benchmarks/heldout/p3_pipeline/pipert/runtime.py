"""Drives a stage through the schedule."""

from typing import Callable, List

import torch
import torch.distributed as dist

from .schedule import one_f_one_b
from .stage import Stage
from .topology import linear


class PipelineRuntime:
    def __init__(
        self, build_stage: Callable[[int], torch.nn.Module], handle_for: Callable[[int], int], shape
    ):
        world = dist.get_world_size()
        rank = dist.get_rank()
        self.spec = linear(world)[rank]
        self.n_stages = world
        self.stage = Stage(self.spec, build_stage(rank), handle_for(self.spec.device), shape)

    def run(self, n_micro: int) -> None:
        grads = {}
        for action in one_f_one_b(n_micro, self.n_stages, self.spec.rank):
            match action.kind:
                case "recv_act":
                    self.stage.recv_act(action.mb)
                case "fwd":
                    self.stage.fwd(action.mb)
                case "send_act":
                    self.stage.send_act(action.mb)
                case "recv_grad":
                    grads[action.mb] = self.stage.recv_grad(action.mb)
                case "bwd":
                    self.stage.bwd(action.mb, grads.pop(action.mb))
                case "send_grad":
                    self.stage.send_grad(action.mb)
        self.stage.flush()

    def barrier(self) -> None:
        torch.npu.synchronize()
        dist.barrier()

    def checkpoint_barrier(self) -> None:
        with torch.npu.stream(self.stage.streams.compute):
            dist.barrier()  # expect: XST111


def activations_on_host(stages: List[Stage], mb: int) -> List[torch.Tensor]:
    out = []
    for st in stages:
        with torch.npu.stream(st.streams.compute):
            out.append(st.outputs[mb].to("cpu", non_blocking=True))  # expect: XST201
    return out
