# Values summaries carry: containers held by self, dicts returned by helpers, defaults.
import torch
from torch_npu.npu import ExternalStream

EXT = ExternalStream(1234)


class Pool:
    def __init__(self, s):
        self.streams = [s]

    def flush_all(self):
        for s in self.streams:
            s.synchronize()


def table(ext):
    return {"managed": torch.npu.Stream(), "ext": ext}


def sync(s=EXT):
    s.synchronize()


def sync_or_new(s=None):
    if s is None:
        s = torch.npu.Stream()
    s.query()


def containers_and_defaults(h):
    ext = ExternalStream(h)
    Pool(ext).flush_all()  # XST101
    Pool(torch.npu.Stream()).flush_all()
    table(ext)["managed"].query()
    table(ext)["ext"].query()  # XST102
    table(torch.npu.Stream())["ext"].query()
    sync()  # XST101
    sync(torch.npu.Stream())
    sync(s=torch.npu.Stream())
    sync(*[torch.npu.Stream()])
    sync_or_new()
    later = lambda s=EXT: s.query()  # noqa: E731
    later()  # XST102
    later(torch.npu.Stream())


def each_key(d):
    for k in d:
        k.query()


def by_name(d):
    d["ext"].query()


def dict_keys_are_not_its_values(h):
    ext = ExternalStream(h)
    named = {"a": ext}
    for name in named:
        name.query()
    for value in named.values():
        value.query()  # XST102
    for name, value in named.items():
        name.query()
        value.query()  # XST102
    [k.query() for k in named]
    each_key(named)
    each_key([ext])  # XST102
    by_name({"ext": ext})  # XST102
    by_name({"ext": torch.npu.Stream(), "other": ext})


class Tools:
    @classmethod
    def sync(cls, s):
        s.synchronize()

    @staticmethod
    def query(s):
        s.query()


def methods_called_through_the_class(h):
    ext = ExternalStream(h)
    Tools.sync(ext)  # XST101
    Tools().sync(ext)  # XST101
    Tools.query(ext)  # XST102
    Tools.sync(torch.npu.Stream())
