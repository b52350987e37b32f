"""Run configuration, read from YAML in production; defaults here."""

import enum
from dataclasses import dataclass, field
from typing import Optional


class StreamKind(enum.Enum):
    MANAGED = "managed"
    EXTERNAL = "external"


@dataclass
class Placement:
    device: str = "npu:0"
    comm: StreamKind = StreamKind.MANAGED
    comm_handle: Optional[int] = None


@dataclass
class TrainConfig:
    epochs: int = 1
    lr: float = 1e-3
    grad_accum: int = 1
    placement: Placement = field(default_factory=Placement)
    callbacks: tuple = ("timer",)
