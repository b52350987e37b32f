"""r64 (p16_trainkit run.py:27; flowfam3, NOT fixed): ``t.lane = ExternalStream(h)`` through
a property setter that stores the value under ``_lane``. The assignment is kept as the
instance's ``lane`` field (a method reading ``self.lane`` sees it, unless the getter's own
class-level value answers first), but the setter is not run: a method reading
``self._lane`` sees the managed stream ``__init__`` made.
"""

import torch
import torch_npu


class Trainer:
    def __init__(self) -> None:
        self._lane = torch.npu.Stream()

    @property
    def lane(self):
        return self._lane

    @lane.setter
    def lane(self, value) -> None:
        self._lane = value

    def flush(self) -> None:
        self._lane.synchronize()


def main(handle: int) -> None:
    t = Trainer()
    t.lane = torch_npu.npu.ExternalStream(handle)
    t.flush()  # expect: XST101
