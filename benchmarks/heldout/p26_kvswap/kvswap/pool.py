"""Host slot pools."""

import collections

import torch


class SlotPool:
    def __init__(self, count: int, numel: int, dtype=torch.float16, pin: bool = True):
        alloc = {"dtype": dtype, "pin_memory": pin}
        self.slots = [torch.empty(numel, **alloc) for _ in range(count)]
        self.free = collections.deque(range(count))

    def acquire(self):
        i = self.free.popleft()
        return i, self.slots[i]

    def release(self, i: int) -> None:
        self.free.append(i)

    def slot(self, i: int):
        return self.slots[i]
