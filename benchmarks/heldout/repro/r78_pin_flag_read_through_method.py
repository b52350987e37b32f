"""r78 (p26_kvswap swapper.py:31/49; hohz; fixed by d1c3760): a slot pool allocating
``torch.empty(n, **{"pin_memory": pin})`` with ``pin=True`` by default, its slot read back
through ``pool.slot(i)``. The body learnt for every caller made the slot pageable (the flag is
a parameter) and the method answered that class join; the dict entry was not a flag the body
is learnt for. Now FLAGGED host memory, held per allocation (conformance
hazard_flow/pin_flag_dict_spread, hazard_flow/pin_flag_pool_method)."""

import torch
import torch_npu


class SlotPool:
    def __init__(self, count: int, pin: bool = True) -> None:
        alloc = {"dtype": torch.float16, "pin_memory": pin}
        self.slots = [torch.empty(8, **alloc) for _ in range(count)]

    def slot(self, i: int):
        return self.slots[i]


def main(handle: int, dst) -> None:
    pool = SlotPool(4)
    with torch.npu.stream(torch_npu.npu.ExternalStream(handle)):
        dst.copy_(pool.slot(0), non_blocking=True)  # expect: XST201
