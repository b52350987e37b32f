# One unpacking routine for every binding site (issue 27, point 3): assignment, for, with-as,
# comprehensions and match unpack alike, starred targets and values of unknown length included.
import contextlib

import torch
from torch_npu.npu import ExternalStream


def pair_gen(h):
    yield torch.npu.Stream()
    yield ExternalStream(h)


def managed_gen():
    yield torch.npu.Stream()
    yield torch.npu.Stream()


@contextlib.contextmanager
def opened(h):
    yield torch.npu.Stream(), ExternalStream(h)


# Starred targets, known positions.
first, *rest = [torch.npu.Stream(), ExternalStream(1), ExternalStream(2)]
rest[0].synchronize()  # XST101
first.synchronize()
*init, last = (ExternalStream(1), torch.npu.Stream())
init[0].query()  # XST102
last.query()

# Unknown length: a generator, tuple() of a generator expression, a comprehension.
g_a, g_b = pair_gen(3)
g_b.synchronize()  # XST101(may)
m_a, m_b = managed_gen()
m_b.synchronize()
t_a, t_b = tuple(ExternalStream(p) for p in (4, 5))
t_b.synchronize()  # XST101
head, *tail = [ExternalStream(p) for p in (4, 5)]
tail[0].query()  # XST102
mt_a, mt_b = tuple(torch.npu.Stream() for _ in range(2))
mt_b.synchronize()

# for, with-as, comprehension and match targets.
for f_a, *f_rest in [(torch.npu.Stream(), ExternalStream(6))]:
    f_rest[0].synchronize()  # XST101
    f_a.synchronize()
with opened(7) as (w_a, w_b):
    w_b.synchronize()  # XST101
    w_a.synchronize()
done = [c_b[0].query() for c_a, *c_b in [(torch.npu.Stream(), ExternalStream(8))]]  # XST102
done = [c_b.query() for c_a, c_b in [tuple(pair_gen(8))]]  # XST102(may)
match [torch.npu.Stream(), ExternalStream(9), torch.npu.Stream()]:
    case [x_a, *x_rest]:
        x_rest[0].synchronize()  # XST101
        x_a.synchronize()
match (torch.npu.Stream(), torch.npu.Stream()):
    case [y_a, *y_rest]:
        y_rest[0].synchronize()


# A parameter unpacked: each target is its element by position, resolved at the call.
def second_of(pair):
    _, second = pair
    second.synchronize()


second_of((torch.npu.Stream(), ExternalStream(10)))  # XST101
second_of((ExternalStream(10), torch.npu.Stream()))
