# lanes in a dict of `itertools.cycle` iterators, one lane of managed streams: the dict's any-key
# value was lost (a container joined with nothing followed), so no literal copy was made; and
# another module's call of next_stream("decode") kept both lanes (an imported body is not copied)
import itertools

import torch
from torch_npu.npu import ExternalStream


class Lanes:
    def __init__(self, h):
        self._rr = {
            "compute": itertools.cycle([torch.npu.Stream()]),
            "decode": itertools.cycle([ExternalStream(h)]),
        }

    def next_stream(self, kind):
        return next(self._rr[kind])


def use(lanes: Lanes):
    lanes.next_stream("decode").synchronize()  # expect: XST101
    lanes.next_stream("compute").synchronize()
