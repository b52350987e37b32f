"""Runs one batch of a model on a given stream."""

from dataclasses import dataclass, field
from typing import List, Optional

import torch
import torch.distributed as dist


@dataclass(order=True)
class Request:
    priority: int
    rid: int = field(compare=False)
    tokens: Optional[torch.Tensor] = field(default=None, compare=False)
    out: List[torch.Tensor] = field(default_factory=list, compare=False)


class Engine:
    def __init__(self, model: torch.nn.Module, tp_group=None):
        self.model = model
        self.tp_group = tp_group
        self.weights_ready = torch.npu.Event()
        self.graph = torch.npu.NPUGraph()
        self.static_in = torch.zeros(8, 128, dtype=torch.long, device="npu")
        self.static_out = None

    def warm_up(self, capture_stream) -> None:
        with torch.npu.graph(self.graph, stream=capture_stream):
            self.static_out = self.model(self.static_in)

    def forward(self, tokens: torch.Tensor, stream) -> torch.Tensor:
        stream.wait_event(self.weights_ready)
        with torch.npu.stream(stream):
            logits = self.model(tokens)
            if self.tp_group is not None:
                dist.all_reduce(logits, group=self.tp_group)
            return logits

    def replay(self, tokens: torch.Tensor) -> torch.Tensor:
        self.static_in.copy_(tokens)
        self.graph.replay()
        return self.static_out

    def sample(self, logits: torch.Tensor) -> torch.Tensor:
        ids = logits.argmax(-1)
        return ids.to("cpu", non_blocking=True)
