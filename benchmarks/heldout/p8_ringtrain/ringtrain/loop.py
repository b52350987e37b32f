"""Training loop with the embedding forward on the ring library's stream."""

from typing import Dict, Iterable

import torch

from .bank import StreamBank
from .comm import Algo, CommContext, reduce_with
from .overlap import LocalOverlapper, Overlapper, RingOverlapper, TunedRingOverlapper


class RingTrainer:
    def __init__(self, model: torch.nn.Module, embed: torch.nn.Module, device: int = 0):
        self.model = model
        self.embed = embed
        self.device = device
        self.bank = StreamBank(device)
        self.opt = torch.optim.SGD(list(model.parameters()) + list(embed.parameters()), lr=0.1)

    def step(self, batch: Dict[str, torch.Tensor]) -> float:
        with torch.npu.stream(self.bank.comm):
            h = self.embed(batch["ids"].to(f"npu:{self.device}"))
        loss = self.model(h).mean()
        loss.backward()  # expect: XST203
        self.opt.step()
        self.opt.zero_grad()
        return loss.item()

    def step_side(self, batch: Dict[str, torch.Tensor]) -> float:
        with torch.npu.stream(self.bank.side):
            h = self.embed(batch["ids"].to(f"npu:{self.device}"))
        self.bank.side.synchronize()
        loss = self.model(h).mean()
        loss.backward()
        self.opt.step()
        return loss.item()

    def load(self, host: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        out = {}
        with torch.npu.stream(self.bank.comm):
            for k, v in host.items():
                out[k] = v.pin_memory().npu(non_blocking=True)  # expect: XST201
        return out

    def load_side(self, host: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
        with torch.npu.stream(self.bank.side):
            return {k: v.pin_memory().npu(non_blocking=True) for k, v in host.items()}


def overlap_round(ov: Overlapper, grads: Iterable[torch.Tensor]) -> None:
    for g in grads:
        ov.bucket_ready(g)
    ov.release()


def run(model, embed, loader, algo: Algo = Algo.NATIVE) -> None:
    trainer = RingTrainer(model, embed)
    for batch in loader:
        trainer.step_side(batch)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    overlap_round(LocalOverlapper(0), grads)
    overlap_round(RingOverlapper(0), grads)  # expect: XST104 XST105
    t = TunedRingOverlapper(0)
    t.probe()
    t.flush()
    for g in grads:
        reduce_with(algo, g)
    reduce_with(Algo.RING, grads[0])  # expect: XST111
    CommContext(device=0).reduce(grads[0])
