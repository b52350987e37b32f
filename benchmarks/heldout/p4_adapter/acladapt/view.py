"""Present a vendor stream to torch as an ExternalStream, with a few conveniences."""

import functools

import torch
import torch_npu

from .handles import StreamHandle


class TorchStreamView:
    def __init__(self, handle: StreamHandle):
        self.handle = handle
        self._prev = []

    @functools.cached_property
    def torch_stream(self) -> torch.npu.Stream:
        return torch_npu.npu.ExternalStream(int(self.handle), device=self.handle.device)

    def __getattr__(self, name):
        # anything we do not define is the torch stream's
        return getattr(self.torch_stream, name)

    def __enter__(self) -> "TorchStreamView":
        self._prev.append(torch.npu.current_stream(self.handle.device))
        torch.npu.set_stream(self.torch_stream)
        return self

    def __exit__(self, *exc) -> None:
        torch.npu.set_stream(self._prev.pop())

    def barrier(self) -> None:
        # the vendor stream cannot be synchronized by torch: the whole device is
        torch.npu.synchronize()

    def done(self) -> bool:
        return self.query()  # expect: XST102


class ManagedView:
    """Same interface over a stream torch owns, used when no vendor library is loaded."""

    def __init__(self, device: int = 0):
        self.torch_stream = torch.npu.Stream(device=device)

    def __getattr__(self, name):
        return getattr(self.torch_stream, name)

    def done(self) -> bool:
        return self.query()
