"""One thread per stage; each binds its device and the fabric's stream for that device."""

import threading
from queue import Queue
from typing import List

import torch

from .links import LinkTable, single_link


class StageWorker(threading.Thread):
    def __init__(self, k: int, n: int, links: LinkTable, inbox: Queue, outboxes: List[Queue]):
        super().__init__(daemon=True)
        self.k, self.n = k, n
        self.links = links
        self.inbox = inbox
        self.outboxes = outboxes

    def run(self) -> None:
        torch.npu.set_device(self.k)
        torch.npu.set_stream(self.links.link(self.k))
        while True:
            item = self.inbox.get()
            if item is None:
                break
            x = torch.from_numpy(item).to(f"npu:{self.k}")
            y = x * 2
            if self.k + 1 < self.n:
                nxt = y.to(torch.device("npu", self.k + 1))  # expect: XST112
                self.outboxes[self.k + 1].put(nxt.cpu().numpy())
            else:
                self.outboxes[0].put(y.cpu().numpy())


def rank_worker(handle: int, rank: int, world: int, box: Queue) -> None:
    torch.npu.set_device(rank)
    link = single_link(handle, rank)
    torch.npu.set_stream(link)
    h = torch.randn(16, 16, device=f"npu:{rank}")
    if rank + 1 < world:
        box.put(h.npu(rank + 1))  # expect: XST112
    box.put(h.sum().item())


def rank_worker_managed(rank: int, world: int, box: Queue) -> None:
    torch.npu.set_device(rank)
    torch.npu.set_stream(torch.npu.Stream())
    h = torch.randn(16, 16, device=f"npu:{rank}")
    box.put(h.npu((rank + 1) % world))


def start(links: LinkTable, n: int) -> List[StageWorker]:
    boxes: List[Queue] = [Queue() for _ in range(n)]
    workers = [StageWorker(k, n, links, boxes[k], boxes) for k in range(n)]
    for w in workers:
        w.start()
    return workers
