# a DataLoader(pin_memory=True) batch (a dict) copied value by value:
# .items() and .values() drop pinnedness
import torch
from torch.utils.data import DataLoader
from torch_npu.npu import ExternalStream


def items(h, ds):
    loader = DataLoader(ds, batch_size=8, pin_memory=True)
    with torch.npu.stream(ExternalStream(h)):
        for batch in loader:
            {k: v.to("npu", non_blocking=True) for k, v in batch.items()}  # expect: XST201


def values(h, ds):
    loader = DataLoader(ds, batch_size=8, pin_memory=True)
    with torch.npu.stream(ExternalStream(h)):
        for batch in loader:
            for v in batch.values():
                v.to("npu", non_blocking=True)  # expect: XST201


def subscript(h, ds):
    loader = DataLoader(ds, batch_size=8, pin_memory=True)
    with torch.npu.stream(ExternalStream(h)):
        for batch in loader:
            batch["x"].to("npu", non_blocking=True)  # expect: XST201 (found)
