"""Lane configuration: frozen dataclasses, derived with dataclasses.replace."""

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class LaneConfig:
    name: str
    stream: Any = None
    max_batch: int = 8
    profile: bool = False


def with_stream(cfg: LaneConfig, stream: Any) -> LaneConfig:
    return dataclasses.replace(cfg, stream=stream)


def widened(cfg: LaneConfig, max_batch: int) -> LaneConfig:
    return dataclasses.replace(cfg, max_batch=max_batch)


def profiled(cfg: LaneConfig) -> LaneConfig:
    return dataclasses.replace(cfg, profile=True)
