"""Forward relay across stages with each stage's compute on the fabric's stream."""

from typing import List

import torch

from .links import LinkTable
from .placement import stage_names
from .stage import Stage, hand_over, hand_over_to


class Pair:
    """Two stages pinned to the first two NPUs."""

    def __init__(self, a: Stage, b: Stage, links: LinkTable):
        self.a = a.to("npu:0")
        self.b = b.to("npu:1")
        self.links = links

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.links.link(0)):
            h = hand_over(self.a(x), self.b)  # expect: XST112
        return self.b(h)

    def detached(self, x: torch.Tensor) -> torch.Tensor:
        h = self.a(x)
        with torch.npu.stream(self.links.link(2)):
            h = hand_over(h, self.b)
        return self.b(h)


class Relay:
    def __init__(self, stages: List[Stage], links: LinkTable):
        self.stages = stages
        self.links = links
        self.names = stage_names(len(stages))

    def forward_linked(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(self.names[0])
        for k, stage in enumerate(self.stages[:-1]):
            with torch.npu.stream(self.links.link(k)):
                h = stage(h)
                h = h.to(f"npu:{k + 1}")  # expect: XST112
        return self.stages[-1](h)

    def forward_handoff(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        for k in range(len(self.stages) - 1):
            with torch.npu.stream(self.links.link(k)):
                h = self.stages[k](h)
            h = h.to(f"npu:{k + 1}")
        return self.stages[-1](h)

    def forward_by_weights(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stages[0](x)
        with torch.npu.stream(self.links.local(0)):
            h = hand_over(h, self.stages[1])
        return self.stages[1](h)

    def forward_local(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        for k in range(len(self.stages) - 1):
            with torch.npu.stream(self.links.local(k)):
                h = self.stages[k](h)
                h = hand_over_to(h, k + 1)
        return self.stages[-1](h)

    def skip_link(self, x: torch.Tensor) -> torch.Tensor:
        # the link of npu:1 is current, but this copy runs between npu:0 and npu:2
        h = x.to(torch.device("npu", 0))
        with torch.npu.stream(self.links.link(1)):
            y = h.to(torch.device("npu", 2))
        return y

    def skip_link_bad(self, x: torch.Tensor) -> torch.Tensor:
        h = x.to(torch.device("npu", 0))
        with torch.npu.stream(self.links.link(1)):
            y = hand_over_to(h, 1)  # expect: XST112
        return y
