"""A refused method bound in one module and called in another: reported where it is called,
the message naming the module that bound it (issue 16, section 1)."""

from __future__ import annotations

from pathlib import Path

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex

_STREAMS = """\
import functools

import torch
from torch_npu.npu import ExternalStream

EXT = ExternalStream(0x10)
MANAGED = torch.npu.Stream()
POLL = EXT.query
MANAGED_POLL = MANAGED.query
OPS = {"sync": EXT.synchronize, "managed": MANAGED.synchronize}


def poller():
    return EXT.query


def poller_of(stream):
    return stream.query


def syncer_of(stream):
    return functools.partial(torch.npu.Stream.synchronize, stream)
"""

_APP = """\
import torch
from torch_npu.npu import ExternalStream

from pkg import streams
from pkg.streams import OPS, POLL

POLL()
streams.poller()()
OPS["sync"]()
streams.poller_of(ExternalStream(1))()
streams.syncer_of(ExternalStream(2))()
streams.MANAGED_POLL()
OPS["managed"]()
streams.poller_of(torch.npu.Stream())()
streams.syncer_of(torch.npu.Stream())()
"""


def test_bound_methods_cross_modules(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "streams.py").write_text(_STREAMS)
    app = tmp_path / "app.py"
    app.write_text(_APP)
    findings = analyze_source(app.read_text(), str(app), project=ProjectIndex())
    assert [(f.line, f.code) for f in findings] == [
        (7, "XST102"),
        (8, "XST102"),
        (9, "XST101"),
        (10, "XST102"),
        (11, "XST101"),
    ]
    by_line = {f.line: f.message for f in findings}
    assert "POLL() calls query() (bound pkg/streams.py" in by_line[7]
    assert "(created pkg/streams.py:6)" in by_line[7]
    assert "(bound pkg/streams.py" in by_line[11]
    assert "(created line 11)" in by_line[11]
