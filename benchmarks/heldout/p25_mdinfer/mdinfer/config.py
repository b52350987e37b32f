"""Where each part of the model lives and how copies are issued."""

from dataclasses import dataclass, field
from typing import Dict


@dataclass(frozen=True)
class DeviceMap:
    embed: int = 0
    head: int = 1
    spare: int = 2
    copy_opts: Dict[str, bool] = field(default_factory=lambda: {"non_blocking": True})
    sync_opts: Dict[str, bool] = field(default_factory=lambda: {"non_blocking": False})

    def name(self, part: str) -> str:
        return f"npu:{getattr(self, part)}"
