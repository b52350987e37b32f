"""Entry point: one scheduler thread per device."""

import threading

import torch

from .engine import Engine, Request
from .pool import StreamManager
from .scheduler import Scheduler


def build(model: torch.nn.Module, device: int) -> Scheduler:
    streams = StreamManager(device)
    engine = Engine(model)
    engine.warm_up(torch.npu.Stream(device=device))
    return Scheduler(engine, streams)


def build_on_runtime(model: torch.nn.Module, device: int) -> Scheduler:
    streams = StreamManager(device)
    engine = Engine(model)
    engine.warm_up(streams.next_stream("decode"))  # expect: XST106
    return Scheduler(engine, streams)


def serve_forever(sched: Scheduler, stop: threading.Event) -> None:
    while not stop.is_set():
        sched.step()
    sched.streams.drain()


def main(model: torch.nn.Module, n_devices: int) -> None:
    stop = threading.Event()
    workers = []
    for dev in range(n_devices):
        sched = build(model, dev)
        sched.submit(Request(priority=0, rid=dev, tokens=torch.zeros(128, dtype=torch.long)))
        t = threading.Thread(target=serve_forever, args=(sched, stop), daemon=True)
        t.start()
        workers.append(t)
    for t in workers:
        t.join()


def trace(model: torch.nn.Module) -> None:
    streams = StreamManager(0)
    ext = streams.lanes["decode"]
    print(hex(ext.npu_stream))
    torch.npu.synchronize()
    with torch.npu.stream(ext):
        y = model(torch.zeros(1, 128, dtype=torch.long, device="npu"))
        host = y.cpu()
        torch.npu.current_stream().synchronize()  # expect: XST101
    return host
