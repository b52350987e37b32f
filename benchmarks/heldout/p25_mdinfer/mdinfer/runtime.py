"""Streams of the vendor decode library, one per device it runs on."""

import torch
import torch_npu  # noqa: F401


class DecodeRuntime:
    def __init__(self, lib, devices):
        self.lib = lib
        self.devices = devices
        torch.npu.set_device(devices.head)
        # created while the head device is current: the stream belongs to it
        self.head_lane = torch.npu.ExternalStream(lib.create_stream(devices.head))
        with torch.npu.device(devices.embed):
            self.embed_lane = torch.npu.ExternalStream(lib.create_stream(devices.embed))
        self.spare_lane = torch.npu.Stream(device=f"npu:{devices.spare}")

    def lane_for(self, k):
        with torch.npu.device(k):
            return torch.npu.ExternalStream(self.lib.create_stream(k))


def warmup(lib):
    with torch.npu.device(1):
        lane = torch.npu.ExternalStream(lib.create_stream(1))
    probe = torch.ones(8, device="npu:0")
    with torch.npu.stream(lane):
        mirror = torch.empty(8, device="npu:1")
        mirror.copy_(probe)  # expect: XST112
        local = torch.empty(8, device="npu:2")
        local.copy_(probe)
    torch.npu.synchronize()
    mirror.copy_(probe)
    return mirror, local
