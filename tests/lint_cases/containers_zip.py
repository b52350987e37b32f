# Dicts built from lists of streams: dict(zip(...)), dict(pairs), dict comprehensions.
# A value external in every element is "must"; in some, "may"; iterating a dict gives keys.
import torch
from torch_npu.npu import ExternalStream


def every_value_external(names, h1, h2):
    streams = [ExternalStream(h1), ExternalStream(h2)]
    table = dict(zip(names, streams))
    for name, s in table.items():
        s.synchronize()  # XST101: 9
        name.synchronize()
    for s in table.values():
        s.query()  # XST102: 9
    table["a"].synchronize()  # XST101: 5
    table.get("a").query()  # XST102: 5
    for key in table:
        key.synchronize()  # keys are the names, not the streams
    copied = dict(table)
    copied["b"].query()  # XST102: 5


def some_values_external(names, h):
    mixed = [ExternalStream(h), torch.npu.Stream()]
    table = dict(zip(names, mixed))
    for s in table.values():
        s.synchronize()  # XST101(may): 9
    for _, s in table.items():
        s.query()  # XST102(may): 9
    table[names[0]].synchronize()  # XST101(may): 5


def comprehensions(names, h1, h2):
    streams = [ExternalStream(h1), ExternalStream(h2)]
    by_name = {n: s for n, s in zip(names, streams)}
    for s in by_name.values():
        s.synchronize()  # XST101: 9
    for n, s in by_name.items():
        s.query()  # XST102: 9
        n.query()
    for n in by_name:
        n.synchronize()  # keys are the names
    again = {k: v for k, v in dict(zip(names, streams)).items()}
    again["x"].synchronize()  # XST101: 5
    mixed = {n: s for n, s in zip(names, [ExternalStream(h1), torch.npu.Stream()])}
    mixed["x"].query()  # XST102(may): 5


def pairs_and_keywords(h):
    ext = ExternalStream(h)
    by_index = dict(enumerate([ext, ext]))
    by_index[0].synchronize()  # XST101: 5
    named = dict(main=ext, side=torch.npu.Stream())
    named["main"].query()  # XST102: 5
    named["side"].query()


def managed_only(names):
    streams = [torch.npu.Stream(), torch.npu.Stream()]
    table = dict(zip(names, streams))
    for s in table.values():
        s.synchronize()
    table["a"].query()
    cuda = dict(zip(names, [torch.cuda.Stream(), torch.cuda.ExternalStream(0x1)]))
    for _, s in cuda.items():
        s.synchronize()
    by_name = {n: s for n, s in zip(names, streams)}
    by_name["a"].query()
    streams_by_stream = {s: n for n, s in zip(names, [ExternalStream(0x2)])}
    for n in streams_by_stream.values():
        n.synchronize()  # the values are the names
    for s in streams_by_stream:
        s.query()  # XST102: 9
