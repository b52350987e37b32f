"""Background threads: a drainer fed through a queue, and probes run on an executor."""

import concurrent.futures
import queue
import threading
from typing import List, Optional

import torch

from .lanes import attention_stream, copy_stream


def _sync_lane(s) -> None:
    s.synchronize()  # or: XST101


def _probe(s) -> bool:
    return s.query()  # or: XST102


def _record_done(stream, ev) -> None:
    ev.record(stream)  # or: XST103


class Drainer:
    """Lanes are handed to a thread that waits for them before buffers are recycled."""

    def __init__(self, device: int):
        self.device = device
        self.pending: queue.Queue[Optional[torch.npu.Stream]] = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def hand_over(self) -> None:
        self.pending.put(attention_stream(self.device))

    def _run(self) -> None:
        while True:
            s = self.pending.get()
            if s is None:
                return
            ev = torch.npu.Event()
            s.wait_event(ev)  # expect: XST104


class CopyDrainer:
    def __init__(self, device: int):
        self.device = device
        self.pending: queue.Queue[Optional[torch.npu.Stream]] = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def hand_over(self) -> None:
        self.pending.put(copy_stream(self.device))

    def _run(self) -> None:
        while True:
            s = self.pending.get()
            if s is None:
                return
            s.wait_event(torch.npu.Event())


def sync_all(devices: List[int]) -> None:
    lanes = [attention_stream(d) for d in devices]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futs = [pool.submit(_sync_lane, lane) for lane in lanes]  # expect: XST101
        concurrent.futures.wait(futs)


def sync_copies(devices: List[int]) -> None:
    lanes = [copy_stream(d) for d in devices]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for f in [pool.submit(_sync_lane, lane) for lane in lanes]:
            f.result()


def probe_all(devices: List[int]) -> List[bool]:
    lanes = [attention_stream(d) for d in devices]
    with concurrent.futures.ThreadPoolExecutor() as pool:
        return list(pool.map(_probe, lanes))  # expect: XST102


def probe_copies(devices: List[int]) -> List[bool]:
    with concurrent.futures.ThreadPoolExecutor() as pool:
        return list(pool.map(_probe, [copy_stream(d) for d in devices]))


def mark_done_async(device: int) -> threading.Thread:
    lane = attention_stream(device)
    kw = {"stream": lane, "ev": torch.npu.Event()}
    t = threading.Thread(target=_record_done, kwargs=kw)  # expect: XST103
    t.start()
    return t


def mark_copy_done_async(device: int) -> threading.Thread:
    t = threading.Thread(target=_record_done, args=(copy_stream(device), torch.npu.Event()))
    t.start()
    return t
