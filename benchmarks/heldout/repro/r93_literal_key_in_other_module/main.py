# p1 scheduler.py:69 / p6 cli.py:54: another module's literal key picks the entry a method
# queries: at its call
from lanes import Lanes


class Sched:
    def __init__(self, h):
        self.streams = Lanes(h)

    def busy(self):
        return self.streams.idle("decode")  # expect: XST102


def positive(h):
    return Lanes(h).idle("decode")  # expect: XST102


def negative(h):
    return Lanes(h).idle("prefill")
