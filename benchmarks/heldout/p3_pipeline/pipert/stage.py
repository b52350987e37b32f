"""One pipeline stage: compute on the fused-kernel runtime's stream, p2p on a managed stream."""

from dataclasses import dataclass
from typing import Dict, List

import torch
import torch.distributed as dist
from torch_npu.npu import ExternalStream

from .topology import StageSpec


@dataclass(frozen=True)
class StageStreams:
    compute: torch.npu.Stream
    comm: torch.npu.Stream


class Stage:
    def __init__(self, spec: StageSpec, module: torch.nn.Module, compute_handle: int, shape):
        self.spec = spec
        self.module = module.to(f"npu:{spec.device}")
        self.shape = shape
        self.streams = StageStreams(
            compute=ExternalStream(compute_handle, device=spec.device),
            comm=torch.npu.Stream(device=spec.device),
        )
        self.inputs: Dict[int, torch.Tensor] = {}
        self.outputs: Dict[int, torch.Tensor] = {}
        self.pending: List[dist.Work] = []

    def recv_act(self, mb: int) -> None:
        buf = torch.empty(self.shape, device=f"npu:{self.spec.device}", requires_grad=True)
        if self.spec.first:
            self.inputs[mb] = buf
            return
        with torch.npu.stream(self.streams.comm):
            work = dist.irecv(buf, src=self.spec.prev)
        self.pending.append(work)
        self.inputs[mb] = buf

    def fwd(self, mb: int) -> None:
        for w in self.pending:
            w.wait()
        self.pending.clear()
        with torch.npu.stream(self.streams.compute):
            self.outputs[mb] = self.module(self.inputs[mb])

    def send_act(self, mb: int) -> None:
        if self.spec.last:
            return
        self.streams.comm.wait_stream(self.streams.compute)  # expect: XST103
        with torch.npu.stream(self.streams.comm):
            dist.isend(self.outputs[mb].detach(), dst=self.spec.next)

    def recv_grad(self, mb: int) -> torch.Tensor:
        grad = torch.empty(self.shape, device=f"npu:{self.spec.device}")
        if not self.spec.last:
            with torch.npu.stream(self.streams.compute):
                dist.recv(grad, src=self.spec.next)  # expect: XST111
        return grad

    def bwd(self, mb: int, grad: torch.Tensor) -> None:
        with torch.npu.stream(self.streams.compute):
            out = self.outputs.pop(mb)
            if self.spec.last:
                out.float().mean().backward()
            else:
                torch.autograd.backward(out, grad)

    def send_grad(self, mb: int) -> None:
        inp = self.inputs.pop(mb)
        if self.spec.first or inp.grad is None:
            return
        with torch.npu.stream(self.streams.comm):
            dist.send(inp.grad, dst=self.spec.prev)

    def hand_to_neighbour(self, mb: int) -> torch.Tensor:
        # single-host fast path: copy the activation straight onto the next device
        with torch.npu.stream(self.streams.compute):
            return self.outputs[mb].to(f"npu:{self.spec.device + 1}")  # expect: XST112

    def recompute_bwd(self, mb: int, grad: torch.Tensor) -> None:
        # activation checkpointing: redo the forward on the compute stream, then backward
        with torch.npu.stream(self.streams.compute):
            out = self.module(self.inputs[mb])
        torch.autograd.backward(out, grad)  # expect: XST203

    def offload_input(self, mb: int) -> torch.Tensor:
        t = self.inputs[mb]
        host = torch.empty(t.shape, dtype=t.dtype).pin_memory()
        with torch.npu.stream(self.streams.compute):
            host.copy_(t.detach(), non_blocking=True)  # expect: XST201
        return host

    def flush(self) -> None:
        self.streams.comm.synchronize()
        self.streams.compute.synchronize()  # expect: XST101
