"""The media decoder library owns a queue on the NPU; we adopt it as a stream."""

import torch
from torch_npu.npu import ExternalStream


class DecoderQueue:
    def __init__(self, handle: int, device: int = 0):
        self.device = device
        self.stream = ExternalStream(handle, device=device)

    def enter(self) -> None:
        """Make the decoder's queue current for the calling thread."""
        torch.npu.set_device(self.device)
        torch.npu.set_stream(self.stream)

    def leave(self) -> None:
        torch.npu.set_stream(torch.npu.default_stream(self.device))


def open_decoder(handle: int) -> DecoderQueue:
    return DecoderQueue(handle)
