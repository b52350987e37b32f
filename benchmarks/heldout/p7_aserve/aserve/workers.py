"""Workers: each owns one stream; the decode worker runs on the runtime's stream."""

import torch
import torch_npu

from .streams import use_stream


class Worker:
    def __init__(self, device: int, stream=None):
        self.device = device
        self.stream = stream if stream is not None else torch.npu.Stream(device=device)
        self.ready = torch.npu.Event()

    def run(self, model: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
        with use_stream(self.stream):
            return model(x)

    def barrier(self) -> None:
        self.stream.synchronize()  # maybe: XST101

    def publish(self) -> None:
        self.ready.record(self.stream)  # maybe: XST103


class PrefillWorker(Worker):
    def __init__(self, device: int):
        super().__init__(device)


class DecodeWorker(Worker):
    def __init__(self, device: int, handle: int):
        super().__init__(device, stream=torch_npu.npu.ExternalStream(handle, device=device))
        self.steps = 0

    def after(self, other: Worker) -> None:
        self.stream.wait_event(other.ready)  # expect: XST104

    def to_host(self, logits: torch.Tensor) -> torch.Tensor:
        with use_stream(self.stream):
            return logits.to("cpu", non_blocking=True)  # expect: XST201


class TracingDecodeWorker(DecodeWorker):
    def __init__(self, device: int, handle: int, tag: str):
        super().__init__(device, handle)
        self.tag = tag

    def trace(self) -> bool:
        with use_stream(self.stream) as s:
            return s.query()  # expect: XST102
