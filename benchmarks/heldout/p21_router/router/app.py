"""The router's request paths."""

import torch
import torch_npu  # noqa: F401

from .dispatch import borrowed_lane, fence_sink, pinned_current, tagger
from .lanes import FrozenLanes, build_table, managed_table
from .select import by_priority, drain_in_order, fold_pick, least_loaded, most_urgent


class Router:
    def __init__(self, decode_handle: int) -> None:
        self.table = build_table(decode_handle)
        self.side = managed_table()
        self.load = {}

    def fence_decode(self) -> None:
        self.table["decode"].synchronize()  # expect: XST101
        self.table["prefill"].synchronize()

    def probe(self) -> bool:
        ready = self.table.get("decode").query()  # expect: XST102
        return ready and self.side.get("spill").query()

    def mark_all(self) -> list:
        marks = []
        for _name, lane in self.table.items():
            marks.append(lane.record_event())  # expect: XST103
        for lane in self.side.values():
            marks.append(lane.record_event())
        return marks

    def snapshot_wait(self, event) -> None:
        view = FrozenLanes(self.table.items())
        view["decode"].wait_event(event)  # expect: XST104
        FrozenLanes(self.side.items())["prefill"].wait_event(event)

    def retire(self) -> None:
        old = self.table.pop("decode")
        old.synchronize()  # expect: XST101
        self.side.pop("spill").synchronize()

    def route(self, x):
        lanes = list(self.table.values())
        lane = least_loaded(lanes, self.load)
        if lane.query():  # expect: XST102
            return x
        calm = least_loaded(list(self.side.values()), self.load)
        return x if calm.query() else None

    def urgent_mark(self):
        first = by_priority([self.table["decode"], self.table["prefill"]])[0]
        done = first.record_event()  # expect: XST103
        top = most_urgent(list(self.side.values()))
        return done, top.record_event()

    def folded_wait(self) -> None:
        pick = fold_pick([self.table["prefill"], self.table["decode"]])
        pick.wait_stream(self.side["prefill"])  # expect: XST104
        fold_pick(list(self.side.values())).wait_stream(self.table["prefill"])

    def drain(self) -> None:
        drain_in_order([self.table["prefill"], self.table["decode"]])  # expect: XST101
        drain_in_order(list(self.side.values()))

    def fence_by_send(self) -> int:
        sink = fence_sink()
        next(sink)
        sink.send(self.side["prefill"])
        count = sink.send(self.table["decode"])  # expect: XST101
        return count

    def tag(self):
        gen = tagger()
        next(gen)
        quiet = gen.send(self.side["spill"])
        loud = gen.send(self.table["decode"])  # expect: XST103
        return quiet, loud

    def decode_step(self, x):
        with borrowed_lane(self.table, "decode") as lane:
            y = x * 2
            torch.npu.current_stream().synchronize()  # expect: XST101
        with borrowed_lane(self.table, "prefill") as lane:
            z = y + 1
            torch.npu.current_stream().synchronize()
        return z, lane

    def pinned_step(self, x, event):
        with pinned_current(self.table["decode"]):
            y = x + 1
            event.wait()  # expect: XST104
        with pinned_current(self.side["spill"]):
            event.wait()
        return y

    def nested(self, x):
        decode, prefill = self.table["decode"], self.table["prefill"]
        with torch.npu.stream(prefill), torch.npu.stream(decode):
            y = x @ x
            torch.npu.current_stream().query()  # expect: XST102
        with torch.npu.stream(decode), torch.npu.stream(prefill):
            y = y @ x
            torch.npu.current_stream().query()
        with torch.npu.stream(decode):
            y = y.relu()
        torch.npu.synchronize()
        return y, decode.npu_stream


def main(handle: int) -> None:
    router = Router(handle)
    router.fence_decode()
    router.probe()
    router.mark_all()
    router.snapshot_wait(torch.npu.Event())
    router.route(torch.ones(2))
    router.urgent_mark()
    router.folded_wait()
    router.drain()
    router.fence_by_send()
    router.tag()
    router.decode_step(torch.ones(2))
    router.pinned_step(torch.ones(2), torch.npu.Event())
    router.nested(torch.ones(2, 2))
    router.retire()
    cuda = torch.cuda.Stream()
    cuda.synchronize()
