# Newer syntax: match statements and PEP 695 generics (parsed by libcst; Python 3.11's ast
# cannot, so positions come from libcst's PositionProvider here).
import torch
from torch_npu.npu import ExternalStream


def dispatch(cmd, h):
    ext = ExternalStream(h)
    match cmd:
        case "sync":
            ext.synchronize()  # XST101
        case {"stream": other}:
            other.synchronize()
        case [first, *rest] if ext.query():  # XST102
            pass
        case _:
            pass


type StreamAlias = ExternalStream


def generic[T](h: T) -> T:
    ExternalStream(h).synchronize()  # XST101
    return h


class Box[T]:
    def run(self, h):
        ExternalStream(h).query()  # XST102
