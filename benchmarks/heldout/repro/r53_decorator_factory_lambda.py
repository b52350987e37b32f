# a decorator factory given a lambda that makes the stream: the wrapper calls it and
# synchronizes what it made. FIXED: a closure's call of a parameter of the function
# enclosing it is that function's call too, its result's sinks that function's ("may"),
# reported where the function is given, as the closure's other sinks are
# (interp/higher_order.py; functions/decorator_factory_lambda,
# closures/closure_calls_factory_argument); p13 hooks.py
import functools

import torch
from torch_npu.npu import ExternalStream


def on_lane(make_lane):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            lane = make_lane()
            with torch.npu.stream(lane):
                out = fn(*args, **kwargs)
                lane.synchronize()  # or: XST101
            return out

        return wrapper

    return deco


@on_lane(lambda: ExternalStream(1))  # expect: XST101
def reduce_bucket(bucket):
    return bucket / 8
