"""Cross-library fences."""

import torch
import torch_npu

from .view import ManagedView, TorchStreamView


class Fence:
    def __init__(self):
        self.event = torch.npu.ExternalEvent()

    def arm(self, view: TorchStreamView) -> None:
        self.event.reset(view.torch_stream)

    def signal(self, view: TorchStreamView) -> None:
        self.event.record(view.torch_stream)  # expect: XST103

    def block(self, view: TorchStreamView) -> None:
        self.event.wait(view.torch_stream)  # expect: XST104

    def signal_managed(self, view: ManagedView) -> None:
        self.event.record(view.torch_stream)


def notify_when_done(view: TorchStreamView, callback) -> None:
    torch_npu.npu._launch_host_func(view.torch_stream, callback, None)  # expect: XST109


def notify_when_queued(view: TorchStreamView, callback) -> None:
    torch_npu.npu._launch_host_func_pending(view.torch_stream, callback, None)


def trace_view(view: TorchStreamView) -> None:
    torch_npu.npu._subscribe_report(view.torch_stream)  # expect: XST110
