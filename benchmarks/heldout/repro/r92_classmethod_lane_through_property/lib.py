from typing import Optional

import torch
from torch_npu.npu import ExternalStream


class Trainer:
    def __init__(self, *, lane: Optional["torch.npu.Stream"] = None, callbacks=None) -> None:
        self._lane = lane if lane is not None else torch.npu.Stream()
        self.callbacks = list(callbacks or [])

    @classmethod
    def on_comm_lane(cls, h, **kwargs) -> "Trainer":
        lane = ExternalStream(h)
        return cls(lane=lane, **kwargs)

    @property
    def lane(self):
        return self._lane

    def step(self):
        self.lane.synchronize()

    def step2(self):
        self._lane.synchronize()
