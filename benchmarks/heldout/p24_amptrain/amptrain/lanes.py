"""The streams a training step may run on."""

from dataclasses import dataclass
from typing import Optional

import torch
import torch_npu  # noqa: F401


@dataclass
class Lanes:
    fused: torch.npu.Stream
    side: torch.npu.Stream
    reference: Optional[torch.cuda.Stream] = None


def open_lanes(runtime, device_index: int = 0) -> Lanes:
    device = torch.device("npu", device_index)
    # the fusion runtime owns this stream and hands torch_npu its handle
    fused = torch.npu.ExternalStream(runtime.stream_handle(device_index), device=device)
    side = torch.npu.Stream(device=device)
    reference = torch.cuda.Stream() if torch.cuda.is_available() else None
    return Lanes(fused=fused, side=side, reference=reference)
