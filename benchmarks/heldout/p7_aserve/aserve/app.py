"""Entry point: `python -m aserve.app --preset big --runtime-handle 0x...`."""

import argparse
import asyncio

import torch
import torch.distributed as dist

from .batcher import Batcher, LocalBatcher
from .config import PRESETS, ServeConfig, with_runtime
from .lanes import ManagedLane, RuntimeLane, lane_step
from .streams import RuntimeSession, session_for, use_stream
from .workers import DecodeWorker, PrefillWorker, TracingDecodeWorker


def comm_overlap(cfg: ServeConfig, grads: torch.Tensor) -> None:
    sess = session_for(cfg.decode_handle, cfg.device)
    stream = sess.stream if sess is not None else torch.npu.Stream(device=cfg.device)
    with use_stream(stream):
        dist.all_reduce(grads)  # maybe: XST111
        torch.npu.Event().record()  # maybe: XST103


async def serve(cfg: ServeConfig, model: torch.nn.Module, xs) -> None:
    prefill = PrefillWorker(cfg.device)
    prefill.publish()
    prefill.barrier()
    if cfg.decode_handle is not None:
        decode = DecodeWorker(cfg.device, cfg.decode_handle)
        decode.after(prefill)
        decode.publish()  # expect: XST103
        y = decode.run(model, xs[0])
        decode.barrier()  # expect: XST101
        decode.to_host(y)
        sess = RuntimeSession(cfg.decode_handle, cfg.device)
        b = Batcher(sess, torch.npu.Stream(device=cfg.device))
        await asyncio.gather(b.produce(xs), b.produce_decode(xs), b.consume())


async def tracing(handle: int, model: torch.nn.Module) -> None:
    w = TracingDecodeWorker(0, handle, "t0")
    w.trace()
    w.barrier()  # expect: XST101


async def lanes(handle: int, x: torch.Tensor) -> None:
    await lane_step(ManagedLane(0), x)
    await lane_step(RuntimeLane(handle, 0), x)  # expect: XST101


async def local(x: torch.Tensor) -> torch.Tensor:
    b = LocalBatcher(0)
    await b.produce(x)
    return await b.consume()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", choices=sorted(PRESETS), default="dev")
    ap.add_argument("--runtime-handle", type=lambda s: int(s, 0), default=None)
    args = ap.parse_args(argv)
    cfg = PRESETS[args.preset]
    if args.runtime_handle is not None:
        cfg = with_runtime(cfg, args.runtime_handle)
    model = torch.nn.Linear(16, 16).to(f"npu:{cfg.device}")
    if cfg.overlap_comm:
        comm_overlap(cfg, torch.zeros(16, device=f"npu:{cfg.device}"))  # expect: XST111 XST103
    asyncio.run(serve(cfg, model, [torch.randn(4, 16)]))
