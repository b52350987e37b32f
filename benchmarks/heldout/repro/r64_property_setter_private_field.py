"""r64 (p16_trainkit run.py:27; flowfam3; fixed by setters): ``t.lane = ExternalStream(h)``
through a property setter that stores the value under ``_lane``. The assignment was kept as
the instance's ``lane`` field only, the setter not run: a method reading ``self._lane`` saw
the managed stream ``__init__`` made. The setter now runs at the assignment
(interp/attributes.py; conformance data_model/property_setter_private_field). p16's own trap
at run.py:27 is an XST203 whose report is placed inside trainer.py:50 (the class-level
"may be" of ``_lane``), a placement question, not this one."""

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
