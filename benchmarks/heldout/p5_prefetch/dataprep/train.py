"""Training loops that overlap input copies with compute."""

import torch
from torch_npu.npu import ExternalStream

from .loader import make_eval_loader, make_loader
from .prefetch import HostCache, Prefetcher


def train_managed(model: torch.nn.Module, opt: torch.optim.Optimizer, steps: int) -> None:
    pf = Prefetcher(make_loader(steps * 8, 8))
    batch = pf.next()
    while batch is not None:
        loss = model(batch["input_ids"], labels=batch["labels"]).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        batch = pf.next()


def train_on_io_stream(
    model: torch.nn.Module, opt: torch.optim.Optimizer, io_handle: int, steps: int
) -> None:
    # the storage engine gives us its stream; input copies go on it
    io = ExternalStream(io_handle)
    pf = Prefetcher(make_loader(steps * 8, 8), stream=io)  # expect: XST201
    while True:
        batch = pf.next()  # expect: XST103  # maybe: XST201
        if batch is None:
            break
        loss = model(batch["input_ids"], labels=batch["labels"]).loss
        loss.backward()
        opt.step()


def eval_on_io_stream(model: torch.nn.Module, io_handle: int) -> float:
    io = ExternalStream(io_handle)
    loader = make_eval_loader(64, 8)
    total = 0.0
    with torch.no_grad(), torch.npu.stream(io):
        for batch in loader:
            ids = batch["input_ids"].to("npu", non_blocking=True)
            total += model(ids).logits.float().mean().item()
    return total


class OffloadingTrainer:
    def __init__(self, model: torch.nn.Module, offload_handle: int):
        self.model = model
        self.offload = ExternalStream(offload_handle)
        self.cache = HostCache(1 << 20)

    def step(self, batch) -> torch.Tensor:
        ids = batch["input_ids"].to("npu")
        with torch.npu.stream(self.offload):
            hidden = self.model.embed(ids)
            self.cache.stash(hidden.detach())  # expect: XST201
        out = self.model.body(hidden)
        loss = out.float().pow(2).mean()
        loss.backward()  # expect: XST203
        return loss.detach()

    def step_same_stream(self, batch) -> torch.Tensor:
        ids = batch["input_ids"].to("npu")
        with torch.npu.stream(self.offload):
            hidden = self.model.embed(ids)
            out = self.model.body(hidden)
            loss = out.float().pow(2).mean()
            loss.backward()
            host = hidden.detach().cpu()
        return loss.detach() + host.sum()
