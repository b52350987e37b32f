# Copies between two NPUs while an external stream is current (XST112): the copy records and
# waits events on both devices' current streams. Traps: the same device, an unknown index,
# host copies, no external stream current, managed streams. The external stream is on npu:0,
# one of the two devices of each copy (hazards_devices.py: streams on other devices).
import torch

ext = torch.npu.ExternalStream(handle, device=0)
managed = torch.npu.Stream()
zero = torch.ones(4, device="npu:0")
one = torch.zeros(4, device=torch.device("npu", 1))
anywhere = torch.ones(4, device="npu")

with torch.npu.stream(ext):
    a = zero.to("npu:1")  # XST112: 9
    a = zero.to("npu:0")
    a = zero.to("npu")
    a = anywhere.to("npu:1")
    b = zero.to(one)  # XST112: 9
    b = zero.to(zero)
    c = zero.npu(1)  # XST112: 9
    c = zero.npu(0)
    one.copy_(zero)  # XST112: 5
    zero.copy_(zero)
    one.copy_(anywhere)
    d = zero.to(torch.device("npu:1"), non_blocking=True)  # XST112: 9
    d = zero.to(torch.device("npu:0"), non_blocking=True)
    h = zero.to("cpu")

zero.to("npu:1")
one.copy_(zero)
with torch.npu.stream(managed):
    zero.to("npu:1")
    one.copy_(zero)
