"""Edges of the object-model families of issue 27: spellings that are not the family's
(wrong arity, spreads, non-literal names, a bare ``raise``) are unknown, never a crash or a
finding; and the joins a container's growth relies on.

The families themselves are measured by the conformance suite (``tests/conformance``), one
case per spelling with its negative twin.
"""

from __future__ import annotations

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.abstract.atoms import Const, ExtStream
from extstream_lint.analysis.abstract.values import Seq, join

ODD = """\
import collections
import torch
from torch_npu.npu import ExternalStream


class Streams:
    def __getitem__(self, s):
        s.synchronize()
        return s

    def __iter__(self):
        return self

    def __call__(self, *args):
        return args


def odd(h, name):
    st = Streams()
    st[ExternalStream(h)]
    for _ in st:
        pass
    st(*[ExternalStream(h)])
    d = {}
    d[ExternalStream(h)] = 1
    d[name] = ExternalStream(h)
    d[1:2] = []
    setattr(st, "x")
    setattr(*[st, "x", 1])
    setattr(st, name, ExternalStream(h))
    setattr(st.attr.deeper, "x", ExternalStream(h))
    getattr(st, "x", 1, 2)
    collections.namedtuple()
    collections.namedtuple("P", 3)
    collections.namedtuple("P", [("a"), ("b", int)])
    collections.namedtuple("P", field_names=["a", 1])
    collections.deque(maxlen=3).append(ExternalStream(h))
    [].insert(name, ExternalStream(h))
    [].extend(name)
    super(1, 2, 3)
    type()
    type(1, 2, 3)
    try:
        raise
    except (ValueError, KeyError) as e:
        e.stream.query()
"""


def test_odd_spellings_are_unknown_not_errors() -> None:
    found = [(f.line, f.code) for f in analyze_source(ODD, "odd.py")]
    assert "XST000" not in [code for _, code in found]
    # getattr with a name not spelt, an exception nobody raised here: nothing to report.
    # ``st[ExternalStream(h)]`` is no odd spelling: it runs ``__getitem__``, which
    # synchronizes the stream it is given (reported at the subscript, interp/mappings.py).
    assert found == [(20, "XST101")], found


def test_a_list_that_grew_on_one_path_holds_either_element() -> None:
    ext = ExtStream(True, "created", None)
    grown = join(Seq(()), Seq((ext,)))
    assert grown == Seq((ext,))
    assert join(Seq((Const(1),)), Seq((Const(1), ext))) == Seq((join(Const(1), ext),))


def test_literal_keys_are_joined_key_by_key() -> None:
    ext = ExtStream(True, "created", None)
    empty = Seq((), is_dict=True)
    stored = Seq((ext,), (("comm", ext),))
    joined = join(empty, stored)
    assert isinstance(joined, Seq) and dict(joined.keys)["comm"] == ext.weakened()
    # a dict and a list are not one container
    assert join(stored, Seq((ext, ext))) is None
