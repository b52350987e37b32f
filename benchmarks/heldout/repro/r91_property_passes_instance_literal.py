# a property / cached_property passes the constructor's literal to the factory that compares it
# (p15 engine.py provider, same-module half): at the call on the external instance
import functools

import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream


def make_lane(name, h):
    if name == "ext":
        return ExternalStream(h)
    return torch.npu.Stream()


class Engine:
    def __init__(self, backend, h):
        self.backend = backend
        self.h = h

    @functools.cached_property
    def lane(self):
        return make_lane(self.backend, self.h)

    @property
    def plane(self):
        return make_lane(self.backend, self.h)

    def lane_m(self):
        return make_lane(self.backend, self.h)

    def sync_c(self):
        self.lane.synchronize()

    def sync_p(self):
        self.plane.synchronize()

    def sync_m(self):
        self.lane_m().synchronize()

    def sync_d(self):
        make_lane(self.backend, self.h).synchronize()


def positive(h):
    Engine("ext", h).sync_c()  # expect: XST101
    Engine("ext", h).sync_p()  # expect: XST101
    Engine("ext", h).sync_m()  # expect: XST101
    Engine("ext", h).sync_d()  # expect: XST101


def negative(h):
    Engine("managed", h).sync_c()
    Engine("managed", h).sync_p()
    Engine("managed", h).sync_m()
    Engine("managed", h).sync_d()
