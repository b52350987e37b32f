"""Serving configuration; presets picked by `--preset` on the command line."""

from typing import NamedTuple, Optional


class ServeConfig(NamedTuple):
    device: int = 0
    decode_handle: Optional[int] = None
    max_batch: int = 32
    overlap_comm: bool = False


PRESETS = {
    "dev": ServeConfig(),
    "big": ServeConfig(max_batch=128, overlap_comm=True),
}


def with_runtime(cfg: ServeConfig, handle: int) -> ServeConfig:
    return cfg._replace(decode_handle=handle)
