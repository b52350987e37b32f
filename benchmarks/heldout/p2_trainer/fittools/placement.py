"""Config-driven device and stream placement."""

import torch
from torch_npu.npu import ExternalStream

from .config import Placement, StreamKind


def device_index(spec: str) -> int:
    _, _, idx = spec.partition(":")
    return int(idx or 0)


def comm_stream(p: Placement):
    if p.comm is StreamKind.EXTERNAL:
        return ExternalStream(p.comm_handle, device=device_index(p.device))
    return torch.npu.Stream(device=device_index(p.device))


class OverlapStreams:
    """Streams the trainer overlaps: the main compute stream and the communication stream."""

    def __init__(self, p: Placement):
        self.compute = torch.npu.current_stream(device_index(p.device))
        self.comm = comm_stream(p)

    def handoff(self) -> None:
        # communication starts only after compute produced the gradients
        self.comm.wait_stream(self.compute)
