"""Loaders written for CUDA, run on NPU through transfer_to_npu."""

from typing import Dict, Iterator

import torch
import torch_npu  # noqa: F401
from torch.utils.data import DataLoader, Dataset
from torch_npu.contrib import transfer_to_npu  # noqa: F401


class Clips(Dataset):
    def __init__(self, n: int):
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Dict[str, torch.Tensor]:
        return {"frames": torch.rand(8, 3, 64, 64), "label": torch.tensor(i % 10)}


def clip_loader(n: int, bs: int) -> DataLoader:
    return DataLoader(Clips(n), batch_size=bs, num_workers=2, pin_memory=True)


def plain_loader(n: int, bs: int) -> DataLoader:
    return DataLoader(Clips(n), batch_size=bs)


def on_queue(loader: DataLoader, queue_stream) -> Iterator[Dict[str, torch.Tensor]]:
    for batch in loader:
        with torch.cuda.stream(queue_stream):
            yield {k: v.cuda(non_blocking=True) for k, v in batch.items()}


def on_side_stream(loader: DataLoader) -> Iterator[Dict[str, torch.Tensor]]:
    side = torch.cuda.Stream()
    for batch in loader:
        with torch.cuda.stream(side):
            out = {k: v.cuda(non_blocking=True) for k, v in batch.items()}
        torch.cuda.current_stream().wait_stream(side)
        yield out
