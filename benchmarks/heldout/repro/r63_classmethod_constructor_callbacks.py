"""r63 (p16_trainkit run.py:11/13, trainer.py:50; flowfam3). Two families.

Fixed: the caller's callbacks, objects of two classes (``[StepTimer(), GradAllReduce()]``,
``list(callbacks or [])``), iterated by a method that calls a hook on each with ``self``
(``for cb in self.callbacks: cb.on_step_end(self, loss)``). Objects of different classes
joined into "unknown" (values.join), so no hook was called; they join into a ``OneOf`` now
(abstract/values.py), whose attribute is each object's (abstract/paths.py) and which a
summary's recorded call runs each of (interp/higher_order.py): XST111 at the caller's call.

NOT fixed: a ``@classmethod`` alternate constructor (``Trainer.on_comm_lane``) passes an
external stream to ``cls(...)``, the plain constructor a managed one. The class-level join of
``lane`` is then a "may be", so ``step()`` reports its backward inside the shared method ("may
be", trainer.py:50) instead of at the call on the instance the caller built with the
classmethod (as for a subclass the caller picks, conformance
placement/subclass_chosen_by_caller). What is missing: the classmethod's ``cls(...)`` read as
a construction at its caller (the instance's fields), with the method's copy for the
receiver's own stream (interp/variants.py ``_pin_keys``) chosen by them.
"""

import ctypes

import torch
import torch.distributed as dist
import torch_npu

_lib = ctypes.CDLL("libhcomm_lanes.so")


class Callback:
    def on_step_end(self, trainer, loss) -> None:
        pass


class GradAllReduce(Callback):
    def on_step_end(self, trainer, loss) -> None:
        with torch.npu.stream(trainer.lane):
            for p in trainer.model.parameters():
                dist.all_reduce(p.grad)


class Trainer:
    def __init__(self, model, lane=None, callbacks=None):
        self.model = model
        self.lane = lane if lane is not None else torch.npu.Stream()
        self.callbacks: list[Callback] = list(callbacks or [])

    @classmethod
    def on_comm_lane(cls, model, rank: int, **kwargs) -> "Trainer":
        return cls(model, torch_npu.npu.ExternalStream(_lib.lane(rank), device=rank), **kwargs)

    def step(self, batch):
        with torch.npu.stream(self.lane):
            loss = self.model(batch).mean()
        loss.backward()  # maybe: XST203
        for cb in self.callbacks:
            cb.on_step_end(self, loss)
        return loss


def main(model, batch, rank: int) -> None:
    hooks = [Callback(), GradAllReduce()]
    Trainer.on_comm_lane(model, rank, callbacks=hooks).step(batch)  # expect: XST203 XST111
    Trainer(model, callbacks=[Callback(), GradAllReduce()]).step(batch)
