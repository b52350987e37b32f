"""r55 (regression at the merge of hazfam, found at a143ae1; p7_aserve app.py:43): a stream
made with ``device=device`` in a subclass's ``__init__`` and handed to the base's through
``super().__init__(..., stream=...)``; a sub-subclass's instance calls the base's
``barrier()``. Without ``device=device`` (or on the placement branch before hazfam's
"a stream sits on the device its allocation passed") ``tracing`` reports XST101 at
``w.barrier()``; with it, the call site is silent and only the "may be" inside the base
remains. Also missed on every branch: ``direct`` (one level of subclass), the same call.
Expected: XST101 at both calls, nothing inside ``Worker.barrier`` (one finding per defect).
Diagnosis so far (c193d0f): with ``device=device`` the class-level join of ``stream`` on the
subclasses differs from the base's by its device only ({0} against a symbolic one), so a
second subclass view of ``barrier`` is made; the call applies that view, which reads
``self.stream`` as the class-level "may be" (not a parameter path), so the reporting pass
raises nothing at ``w.barrier()`` (the learning pass does). A device difference alone
should not make a view for the call-site rules. Fixed for ``tracing`` (views compare an
attribute's streams by value, not identity: tests/lint/test_subclass_chain_device.py); the
one-level ``direct`` is still missed.
"""

import torch
import torch_npu


class Worker:
    def __init__(self, device: int, stream=None):
        self.device = device
        self.stream = stream if stream is not None else torch.npu.Stream(device=device)

    def barrier(self) -> None:
        self.stream.synchronize()  # maybe: XST101


class DecodeWorker(Worker):
    def __init__(self, device: int, handle: int):
        super().__init__(device, stream=torch_npu.npu.ExternalStream(handle, device=device))


class TracingDecodeWorker(DecodeWorker):
    def __init__(self, device: int, handle: int, tag: str):
        super().__init__(device, handle)
        self.tag = tag


def tracing(handle: int) -> None:
    w = TracingDecodeWorker(0, handle, "t0")
    w.barrier()  # expect: XST101 (found since the fix)


def direct(handle: int) -> None:
    w = DecodeWorker(0, handle)
    w.barrier()  # expect: XST101
