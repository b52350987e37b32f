"""Wiring: one engine per backend, lane configs derived from the providers."""

import dataclasses

import torch

from plugserve.config import LaneConfig, profiled, widened, with_stream
from plugserve.engine import Engine, load_provider, provider_for
from plugserve.providers import AclServeProvider, CudaReferenceProvider, PoolProvider, quiesce


def swap_weights(model: torch.nn.Module, state: dict) -> None:
    acl = AclServeProvider(0)
    pool = PoolProvider(0)
    quiesce(acl)  # expect: XST103
    quiesce(pool)
    model.load_state_dict(state)


def lane_configs(tokens: torch.Tensor) -> None:
    acl = AclServeProvider(0)
    pool = PoolProvider(0)
    base = LaneConfig(name="decode", stream=acl.stream())
    wide = widened(base, 64)
    wide.stream.wait_stream(torch.npu.current_stream())  # expect: XST104
    traced = dataclasses.replace(base, profile=True)
    traced.stream.record_event()  # expect: XST103
    own = with_stream(base, pool.stream())
    own.stream.wait_stream(torch.npu.current_stream())
    mine = profiled(dataclasses.replace(base, stream=torch.npu.Stream()))
    mine.stream.record_event()


def serve(model: torch.nn.Module, tokens: torch.Tensor, prompt: torch.Tensor) -> torch.Tensor:
    eng = Engine("aclserve")
    eng.sync_ranks(tokens)  # expect: XST111
    Engine("pool").sync_ranks(tokens)
    with torch.npu.stream(eng.provider.stream()):
        staged = prompt.pin_memory().to("npu", non_blocking=True)  # expect: XST201
    return eng.decode(model, staged)


def feedback(model: torch.nn.Module, tokens: torch.Tensor, target: torch.Tensor) -> None:
    """Online adapter tuning from user feedback."""
    logits = Engine("aclserve").decode(model, tokens)
    loss = torch.nn.functional.cross_entropy(logits, target)
    loss.backward()  # expect: XST203
    ref = Engine("pool").decode(model, tokens)
    torch.nn.functional.cross_entropy(ref, target).backward()


def kernels(x: torch.Tensor) -> torch.Tensor:
    with torch.npu.stream(provider_for("external", 0).stream()):
        torch.npu.super_kernel_scope_begin()  # expect: XST108
        y = x.relu()
        torch.npu.super_kernel_scope_end()  # expect: XST108
    with torch.npu.stream(provider_for("managed", 0).stream()):
        torch.npu.super_kernel_scope_begin()
        z = y.relu()
        torch.npu.super_kernel_scope_end()
    return z


def mark_loaded() -> None:
    lane = load_provider("aclserve", 1).stream()
    lane.record_event()  # expect: XST103
    load_provider("pool", 1).stream().record_event()


def cuda_reference(x: torch.Tensor) -> torch.Tensor:
    ref = CudaReferenceProvider(0)
    with torch.cuda.stream(ref.stream()):
        y = x * 2
    ref.stream().synchronize()
    ref.fence()
    return y


def pool_only(x: torch.Tensor) -> torch.Tensor:
    pool = PoolProvider(0)
    pool.fence()
    if pool.ready():
        pool.stream().synchronize()
    return x
