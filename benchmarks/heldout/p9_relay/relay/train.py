"""Training step over the relay: loss on the last stage, activations offloaded to host."""

from typing import List

import torch

from .engine import Relay
from .links import LinkTable
from .stage import Stage


class RelayTrainer:
    def __init__(self, stages: List[Stage], handles: List[int]):
        self.links = LinkTable(handles)
        self.relay = Relay(stages, self.links)
        self.opt = torch.optim.SGD([p for s in stages for p in s.parameters()], lr=0.1)
        self.last = len(stages) - 1

    def step(self, x: torch.Tensor, y: torch.Tensor) -> float:
        out = self.relay.forward_handoff(x)
        with torch.npu.stream(self.links.link(self.last)):
            loss = torch.nn.functional.mse_loss(out, y.to(out.device))
        loss.backward()  # expect: XST203
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()

    def step_on_link(self, x: torch.Tensor, y: torch.Tensor) -> float:
        with torch.npu.stream(self.links.link(self.last)):
            out = self.relay.stages[self.last](x)
            loss = torch.nn.functional.mse_loss(out, y)
            loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, x: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.links.link(0)):
            h = self.relay.stages[0](x)
        return h.float().mean()

    def offload(self, acts: List[torch.Tensor], k: int) -> List[torch.Tensor]:
        with torch.npu.stream(self.links.link(k)):
            return [a.detach().to("cpu", non_blocking=True) for a in acts]  # expect: XST201

    def offload_blocking(self, acts: List[torch.Tensor], k: int) -> List[torch.Tensor]:
        with torch.npu.stream(self.links.link(k)):
            return [a.detach().cpu() for a in acts]
