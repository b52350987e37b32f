"""Application entry: global lane switched by configuration, decoders per channel."""

from typing import List

import torch
import torch.distributed as dist

from .fields import Decoder
from .handles import codec_stream, torch_stream

_DEFAULT_LANE = None


def use_codec(channel: int) -> None:
    global _DEFAULT_LANE
    _DEFAULT_LANE = codec_stream(channel)


def broadcast_frames(frames: torch.Tensor) -> None:
    with torch.npu.stream(_DEFAULT_LANE):
        dist.broadcast(frames, src=0)  # expect: XST111


def gather_frames(frames: torch.Tensor) -> List[torch.Tensor]:
    out = [torch.empty_like(frames) for _ in range(dist.get_world_size())]
    with torch.npu.stream(torch_stream()):
        dist.all_gather(out, frames)
    return out


def host_copy(dec: Decoder, frame: torch.Tensor) -> torch.Tensor:
    host = torch.empty(frame.shape, dtype=frame.dtype, pin_memory=True)
    with torch.npu.stream(dec.lane):
        host.copy_(frame, non_blocking=True)  # expect: XST201
    return host


def host_copy_spare(dec: Decoder, frame: torch.Tensor) -> torch.Tensor:
    host = torch.empty(frame.shape, dtype=frame.dtype, pin_memory=True)
    with torch.npu.stream(dec.spare):
        host.copy_(frame, non_blocking=True)
    return host


def main(channels: List[int]) -> None:
    use_codec(channels[0])
    for ch in channels:
        dec = Decoder(ch)
        dec.flush()
        dec.finish_post()
