"""Datasets and loaders."""

from typing import Dict, List

import torch
from torch.utils.data import DataLoader, Dataset


class TokenDataset(Dataset):
    def __init__(self, n: int, seq: int = 256, vocab: int = 32000):
        self.n, self.seq, self.vocab = n, seq, vocab

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> Dict[str, torch.Tensor]:
        g = torch.Generator().manual_seed(i)
        ids = torch.randint(0, self.vocab, (self.seq + 1,), generator=g)
        return {"input_ids": ids[:-1], "labels": ids[1:]}


def collate(items: List[Dict[str, torch.Tensor]]) -> Dict[str, torch.Tensor]:
    return {k: torch.stack([it[k] for it in items]) for k in items[0]}


def make_loader(n: int, batch_size: int, workers: int = 2) -> DataLoader:
    return DataLoader(
        TokenDataset(n),
        batch_size=batch_size,
        collate_fn=collate,
        num_workers=workers,
        pin_memory=True,
    )


def make_eval_loader(n: int, batch_size: int) -> DataLoader:
    return DataLoader(TokenDataset(n), batch_size=batch_size, collate_fn=collate)
