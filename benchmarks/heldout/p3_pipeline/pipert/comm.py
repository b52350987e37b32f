"""Batched point-to-point exchange and fused-kernel regions for a stage."""

import functools
from typing import List, Optional

import torch
import torch.distributed as dist

from .stage import Stage


def exchange(stage: Stage, send: Optional[torch.Tensor], recv: Optional[torch.Tensor]) -> None:
    ops = []
    if send is not None and stage.spec.next is not None:
        ops.append(dist.P2POp(dist.isend, send, stage.spec.next))
    if recv is not None and stage.spec.prev is not None:
        ops.append(dist.P2POp(dist.irecv, recv, stage.spec.prev))
    if not ops:
        return
    with torch.npu.stream(stage.streams.comm):
        works = dist.batch_isend_irecv(ops)
    with stage.streams.compute:
        for w in works:
            w.wait()  # expect: XST111


def exchange_on_compute(stage: Stage, send: torch.Tensor) -> None:
    isend_next = functools.partial(dist.isend, dst=stage.spec.next)
    with torch.npu.stream(stage.streams.compute):
        isend_next(send)  # expect: XST111


def fused_block(stage: Stage, x: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(stage.streams.compute):
        torch.npu.super_kernel_scope_begin("block")  # expect: XST108
        y = stage.module(x)
        torch.npu.super_kernel_scope_end("block")  # expect: XST108
    return y


def fused_block_managed(stage: Stage, x: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(stage.streams.comm):
        torch.npu.super_kernel_scope_begin("block")
        y = stage.module(x)
        torch.npu.super_kernel_scope_end("block")
    return y


def update_task_group(stage: Stage, handle) -> None:
    torch.npu.graph_task_update_begin(stage.streams.compute, handle)  # expect: XST107
    torch.npu.graph_task_update_end(stage.streams.compute)  # expect: XST107


def join_streams(stages: List[Stage]) -> None:
    for st in stages:
        with st.streams.compute:
            torch.npu.current_stream().wait_stream(st.streams.comm)  # expect: XST104
