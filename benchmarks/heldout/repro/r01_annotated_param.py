# no caller: only the parameter's annotation says which class (whose own code makes the stream)
import ctypes

import torch
from torch_npu.npu import ExternalStream


class Pool:
    def __init__(self, h: int):
        self.s = ExternalStream(h)


def use(pool: Pool):
    pool.s.synchronize()  # expect: XST101


def use_all(pools: "list[Pool]"):
    for p in pools:
        p.s.synchronize()  # expect: XST101


def wrap(p: ctypes.c_void_p):
    return ExternalStream(p)  # expect: XST001
