"""The engine: embed on one NPU, run the head on another, read logits back."""

import queue
import threading
from typing import Optional

import torch

from .config import DeviceMap
from .hostio import copy_into, host_buffer, pinned, upload
from .runtime import DecodeRuntime


class MultiDeviceEngine:
    def __init__(self, lib, embed, head, devices: Optional[DeviceMap] = None):
        devices = devices or DeviceMap()
        self.devices = devices
        self.rt = DecodeRuntime(lib, devices)
        self.embed = embed.to(devices.name("embed"))
        self.head = head.to(devices.name("head"))
        self.out_host = host_buffer((64, 32000), torch.float16)
        self.out_page = host_buffer((64, 32000), torch.float16, pin=False)

    def encode(self, tokens):
        with torch.npu.stream(self.rt.embed_lane):
            staged, dev = pinned(tokens), self.devices.name("embed")
            ids = upload(staged, dev, **self.devices.copy_opts)  # expect: XST201
            return self.embed(ids)

    def encode_blocking(self, tokens):
        with torch.npu.stream(self.rt.embed_lane):
            staged, dev = pinned(tokens), self.devices.name("embed")
            ids = upload(staged, dev, **self.devices.sync_opts)
            return self.embed(ids)

    def hand_over(self, hidden):
        # hidden lives on the embed device; the head's lane is current on the head device
        with torch.npu.stream(self.rt.head_lane):
            h = hidden.to(device=self.devices.name("head"), non_blocking=True)  # expect: XST112
            return self.head(h)

    def hand_to_spare(self, hidden):
        with torch.npu.stream(self.rt.spare_lane):
            return hidden.to(self.devices.name("spare"), non_blocking=True)

    def replicate_embedding(self):
        with torch.npu.stream(self.rt.head_lane):
            head = self.devices.head
            return [p.detach().npu(head) for p in self.embed.parameters()]  # expect: XST112

    def readback(self, logits):
        with torch.npu.stream(self.rt.head_lane):
            host = logits.to("cpu", non_blocking=True)  # expect: XST201
        return host

    def readback_blocking(self, logits):
        with torch.npu.stream(self.rt.head_lane):
            host = logits.cpu()
            pageable = logits.to("cpu", non_blocking=False)
        return host, pageable

    def readback_into(self, logits):
        n = logits.size(0)
        with torch.npu.stream(self.rt.head_lane):
            copy_into(self.out_host[:n], logits, True)  # expect: XST201
            copy_into(self.out_page[:n], logits, True)
            copy_into(self.out_host[:n], logits, False)
        return self.out_host[:n]

    def gather_scores(self, scores):
        opts = dict(device="cpu", non_blocking=True)
        with torch.npu.stream(self.rt.head_lane):
            return [s.to(**opts) for s in scores]  # expect: XST201

    def gather_scores_blocking(self, scores):
        opts = dict(device="cpu")
        with torch.npu.stream(self.rt.head_lane):
            return [s.to(**opts) for s in scores]

    def _device_worker(self, k, jobs, results):
        torch.npu.set_device(k)
        lane = self.rt.lane_for(k)
        torch.npu.set_stream(lane)
        for x in iter(jobs.get, None):
            stage = x.pin_memory()
            y = stage.npu(k, non_blocking=True)  # expect: XST201
            results.put(y.float().softmax(-1).cpu())

    def _spare_worker(self, jobs, results):
        torch.npu.set_device(self.devices.spare)
        torch.npu.set_stream(self.rt.spare_lane)
        for x in iter(jobs.get, None):
            y = x.pin_memory().npu(self.devices.spare, non_blocking=True)
            results.put(y.cpu())

    def start_workers(self, ks):
        jobs, results = queue.Queue(), queue.Queue()
        work = self._device_worker
        threads = [threading.Thread(target=work, args=(k, jobs, results)) for k in ks]
        threads.append(threading.Thread(target=self._spare_worker, args=(jobs, results)))
        for t in threads:
            t.start()
        return jobs, results, threads
