"""Entry points for the three training recipes."""

import torch

from trainkit.callbacks import GradAllReduce, HostSnapshot, LossAverager, StepTimer
from trainkit.trainer import OverlapTrainer, Trainer


def recipe_comm_lane(model, optimizer, loader, rank: int) -> None:
    t = Trainer.on_comm_lane(model, optimizer, rank, callbacks=[StepTimer(), GradAllReduce()])
    t.step(next(iter(loader)))  # expect: XST203 XST103 XST111
    t2 = Trainer.on_comm_lane(model, optimizer, rank, callbacks=[HostSnapshot()])
    t2.fit(loader, epochs=1)  # expect: XST203 XST201


def recipe_default(model, optimizer, loader) -> None:
    t = Trainer.with_defaults(model, optimizer)
    t.fit(loader, epochs=2)
    plain = Trainer(model, optimizer, callbacks=[GradAllReduce(), HostSnapshot(), LossAverager()])
    plain.fit(loader)


def recipe_swapped_lane(model, optimizer, loader, handle: int) -> None:
    t = Trainer(model, optimizer, callbacks=[LossAverager()])
    t.lane = torch.npu.ExternalStream(handle)
    for batch in loader:
        t.step(batch)  # expect: XST203
    u = Trainer(model, optimizer, callbacks=[StepTimer()])
    u.lane = torch.npu.Stream()
    u.fit(loader)


def recipe_overlap(model, optimizer, loader, rank: int) -> None:
    t = OverlapTrainer(model, optimizer, rank)
    for batch in loader:
        with torch.npu.stream(t.lane):
            loss = model(batch).sum()
            loss.backward()
        t.reduce_grads()
        optimizer.step()
