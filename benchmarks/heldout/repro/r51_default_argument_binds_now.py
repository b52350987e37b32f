# `lambda g, lane=lane: ...` / `def finish(lane=lane)`: the loop-capture idiom; the
# function is passed to a library (a hook) or returned, never called with that argument,
# so the default is the value. FIXED: a nested function or lambda no call in the module
# applies is reported at the operation with its defaults (interp/applying.py,
# closures/default_binds_now_returned, lambda_default_stored), and torch's other hooks
# (`register_post_accumulate_grad_hook`, module and optimizer hooks) are flow-model rows
# calling their hook later (library_flow/torch_hook_family); p13 hooks.py
import torch
from torch_npu.npu import ExternalStream


def install(params, h):
    finishers = []
    for p in params:
        lane = ExternalStream(h)

        def finish(lane=lane):
            lane.wait_event(torch.npu.Event())  # expect: XST104

        finishers.append(finish)
        p.register_post_accumulate_grad_hook(lambda _p, lane=lane: lane.query())  # expect: XST102
    return finishers
