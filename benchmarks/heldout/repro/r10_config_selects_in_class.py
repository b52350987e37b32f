# the caller's config picks external or managed inside the class (followed since configflow;
# reported at the caller that passes the external config; across modules: r25)
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


def main_ext(h):
    Trainer(Cfg(kind=Kind.EXTERNAL, handle=h)).run()  # expect: XST101


def main_managed():
    Trainer(Cfg()).run()
