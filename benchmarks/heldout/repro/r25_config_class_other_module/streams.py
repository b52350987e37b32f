# the class and its config in one module, the caller that picks EXTERNAL in another (main.py):
# this module exports copies for its callers' literals (interp/variants.py), so main.py's call
# reports on the external instance; linted alone, this module still says "may be" in run()
import enum
from dataclasses import dataclass

import torch
from torch_npu.npu import ExternalStream


class Kind(enum.Enum):
    MANAGED = "managed"
    EXTERNAL = "external"


@dataclass
class Cfg:
    kind: Kind = Kind.MANAGED
    handle: int = 0


def make(cfg: Cfg):
    if cfg.kind is Kind.EXTERNAL:
        return ExternalStream(cfg.handle)
    return torch.npu.Stream()


class Trainer:
    def __init__(self, cfg: Cfg):
        self.s = make(cfg)

    def run(self):
        self.s.synchronize()
