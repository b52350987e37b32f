"""One training step of the pipeline: forward on the links, loss on the last device."""

from typing import List

import torch

from .pipeline import Pipeline


def step_on_last_link(pipe: Pipeline, x: torch.Tensor, target: torch.Tensor, opt) -> float:
    last = pipe.mesh.world - 1
    h = x.to("npu:0")
    for k in range(last):
        h = pipe.stages[k](h).to(f"npu:{k + 1}")
    y = target.to(f"npu:{last}")
    with torch.npu.stream(pipe.mesh.links[last]):
        out = pipe.stages[last](h)
        loss = (out - y).pow(2).mean()
    loss.backward()  # expect: XST203
    opt.step()
    return loss.item()


def step_all_own(pipe: Pipeline, x: torch.Tensor, target: torch.Tensor, opt) -> float:
    last = pipe.mesh.world - 1
    h = x.to("npu:0")
    for k in range(last):
        h = pipe.stages[k](h).to(f"npu:{k + 1}")
    y = target.to(f"npu:{last}")
    with torch.npu.stream(pipe.mesh.own[last]):
        out = pipe.stages[last](h)
        loss = (out - y).pow(2).mean()
    loss.backward()
    opt.step()
    return loss.item()


def eval_on_links(pipe: Pipeline, batches: List[torch.Tensor]) -> float:
    total = 0.0
    last = pipe.mesh.world - 1
    for x in batches:
        with torch.no_grad(), torch.npu.stream(pipe.mesh.links[0]):
            h = pipe.stages[0](x.to("npu:0"))
        for k in range(1, last + 1):
            h = pipe.stages[k](h.to(f"npu:{k}"))
        total += h.float().mean().item()
    return total
