"""The metrics library runs its kernels on its own queue, which we adopt."""

import torch
from torch_npu.npu import ExternalStream


class AuxQueue:
    def __init__(self, handle: int):
        self.stream = ExternalStream(handle)

    def __enter__(self):
        self._ctx = torch.npu.stream(self.stream)
        self._ctx.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._ctx.__exit__(*exc)
