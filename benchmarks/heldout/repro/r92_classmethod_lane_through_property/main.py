# p16: another module's Trainer.on_comm_lane(h).step(), step reading the lane through a property:
# at the call (lib.py keeps its module-alone "may be")
from lib import Trainer


def positive(h):
    t = Trainer.on_comm_lane(h, callbacks=[])
    t.step()  # expect: XST101
    t.step2()  # expect: XST101


def positive2(h):
    t = Trainer.on_comm_lane(h)
    t.step()  # expect: XST101
    t.step2()  # expect: XST101


def negative(h):
    Trainer().step()
