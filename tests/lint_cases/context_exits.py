# Leaving ``with torch.npu.stream(ext):`` by return, raise, break or continue restores the
# stream the block found, as ``__exit__`` does: the caller gets its own stream back.
import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream


class Runner:
    def __init__(self, ptr):
        self.stream = ExternalStream(ptr)

    def launch(self, fn, *a):
        with torch.npu.stream(self.stream):
            return fn(*a)

    def launch_nested(self, fn, other):
        with torch.npu.stream(self.stream):
            with torch.npu.stream(other):
                return fn()

    def launch_and_keep(self, fn):
        torch.npu.set_stream(self.stream)
        return fn()

    def launch_sometimes_keep(self, fn, c):
        with torch.npu.stream(self.stream):
            if c:
                return fn()
        if fn:
            torch.npu.set_stream(self.stream)
        return None

    def reduce_inside(self, x):
        with torch.npu.stream(self.stream):
            dist.all_reduce(x)  # XST111: 13
            return x

    def step(self, f, x, c):
        out = self.launch(f, x)
        dist.all_reduce(out)
        self.launch_nested(f, torch.npu.Stream())
        dist.all_reduce(out)
        self.reduce_inside(x)
        dist.all_reduce(x)
        self.launch_sometimes_keep(f, c)
        dist.all_reduce(out)  # XST111(may): 9

    def step_kept(self, f, x):
        out = self.launch_and_keep(f)
        dist.all_reduce(out)  # XST111: 9


def launch(ptr, fn):
    with torch.npu.stream(ExternalStream(ptr)):
        return fn()


def caller(ptr, fn, x):
    launch(ptr, fn)
    dist.all_reduce(x)


def leave_by_raise(ptr):
    with torch.npu.stream(ExternalStream(ptr)):
        raise ValueError(ptr)


def after_raise(ptr, x):
    try:
        leave_by_raise(ptr)
    except ValueError:
        pass
    dist.all_reduce(x)


def leave_by_break_and_continue(ptr, items, x):
    ext = ExternalStream(ptr)
    for item in items:
        with torch.npu.stream(ext):
            if item:
                break
            if x:
                continue
            dist.all_reduce(x)  # XST111
        dist.all_reduce(x)
    dist.all_reduce(x)


def leave_by_return_in_a_loop(ptr, items, x):
    ext = ExternalStream(ptr)
    for item in items:
        with torch.npu.stream(ext):
            if item:
                return item
    dist.all_reduce(x)


def caller_of_the_loop(ptr, items, x):
    leave_by_return_in_a_loop(ptr, items, x)
    dist.all_reduce(x)
