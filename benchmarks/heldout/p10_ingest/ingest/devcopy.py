"""Small copy helpers shared by the loaders."""

from typing import Any, Dict

import torch


def upload(t: torch.Tensor, device: Any = "npu", **kwargs: Any) -> torch.Tensor:
    return t.to(device, **kwargs)


def upload_all(batch: Dict[str, torch.Tensor], **kwargs: Any) -> Dict[str, torch.Tensor]:
    return {k: upload(v, **kwargs) for k, v in batch.items()}


def download_into(dst: torch.Tensor, src: torch.Tensor, **kwargs: Any) -> torch.Tensor:
    dst.copy_(src, **kwargs)
    return dst
