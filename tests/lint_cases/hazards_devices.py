# XST112 needs the external stream current on a device the copy touches: the current stream
# is per device (contract section 5), so torch.npu.stream(link) with link on npu:1 makes only
# npu:1's current stream external. Devices are read from every spelling (strings, ints,
# torch.device, .npu(i), f-strings) and compared symbolically (device vs device + 1); what
# cannot be compared stays silent. A stream whose device is not visible gives "may".
import torch

ext = torch.npu.ExternalStream(handle)
link = torch.npu.ExternalStream(handle, device="npu:1")
far = torch.npu.ExternalStream(handle, torch.device("npu", 2))
also = torch.npu.Stream(device=1, stream_ptr=handle)
zero = torch.ones(4, device="npu:0")
one = torch.zeros(4, device=1)
two = torch.zeros(4, device=torch.device("npu:2"))

with torch.npu.stream(link):
    zero.to("npu:1")  # XST112: 5
    one.to(0)  # XST112: 5
    one.npu(2)  # XST112: 5
    zero.to("npu:2")  # npu:1 is neither device of the copy
    two.copy_(zero)
    zero.npu(0)
with torch.npu.stream(far):
    two.copy_(zero)  # XST112: 5
    one.to("npu:0")
with also:
    zero.to(one)  # XST112: 5
    zero.to(two)
torch.npu.set_stream(link)
zero.npu(1)  # XST112: 1
zero.npu(2)
torch.npu.set_stream(torch.npu.default_stream())

# The device of ExternalStream(handle) is whatever device is current: "may".
with torch.npu.stream(ext):
    zero.to("npu:1")  # XST112(may): 5
    zero.to("npu")

# A stream on npu:1 on one path and npu:2 on the other: a copy 0 -> 1 may touch it; a copy
# 0 -> 3 touches neither.
chosen = link if flag else far
with torch.npu.stream(chosen):
    zero.to("npu:1")  # XST112(may): 5
    zero.to("npu:3")
    one.to("npu:2")  # XST112: 5


def pipeline(device, devices, i, j):
    side = torch.npu.ExternalStream(handle, device=device)
    here = torch.ones(4, device=torch.device("npu", device))
    with torch.npu.stream(side):
        here.npu(device + 1)  # XST112: 9
        here.to(f"npu:{device + 1}")  # XST112: 9
        here.npu(device)
        there = here.npu(device - 1)  # XST112: 17
        there.npu(device + 2)
        stage = here.npu(devices[i])
        stage.npu(devices[j])
        stage.npu(devices[i])
