# Syntax Python 3.11 parses: match, except*, walrus in comprehensions, positional-only params.
import torch
from torch_npu.npu import ExternalStream


def dispatch(cmd, h, /, *, flag=False):
    ext = ExternalStream(h)
    match cmd:
        case "sync":
            ext.synchronize()  # XST101
        case [first, *rest] if ext.query():  # XST102
            pass
    try:
        pass
    except* ValueError:
        ext.synchronize()  # XST101
    return [y for x in range(3) if (y := ExternalStream(x))]
