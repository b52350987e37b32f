"""Argument binding and unpacking across modules (issue 27, points 3 and 4), and where
literal constants stop (point 6): the helpers live in one module, the calls in another.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from tests.lint.test_cases import expectations

_HELPERS = """\
import contextlib

import torch
from torch_npu.npu import ExternalStream

PAIR = (torch.npu.Stream(), ExternalStream(0x10))
OPTIONS = {"s": ExternalStream(0x11)}
MANAGED_OPTIONS = {"s": torch.npu.Stream()}


def sync_second(a, b=None):
    if b is not None:
        b.synchronize()


def sync_named(s=None, other=None):
    if s is not None:
        s.synchronize()


def forward(*args, **kwargs):
    return sync_named(*args, **kwargs)


def pair_of(h):
    return torch.npu.Stream(), ExternalStream(h)


def streams(h):
    yield torch.npu.Stream()
    yield ExternalStream(h)


def second_of(pair):
    _, second = pair
    second.synchronize()


def maybe_on(s, enable):
    return torch.npu.stream(s) if enable else contextlib.nullcontext()


def sync_if(s, flag=False):
    if flag:
        s.synchronize()


def run_off(s):
    with maybe_on(s, False):
        torch.npu.current_stream().synchronize()
"""

_APP = """\
import torch
from torch_npu.npu import ExternalStream

from pkg.helpers import (
    MANAGED_OPTIONS,
    OPTIONS,
    PAIR,
    forward,
    maybe_on,
    pair_of,
    run_off,
    second_of,
    streams,
    sync_if,
    sync_named,
    sync_second,
)

sync_second(*PAIR)  # XST101
sync_second(*reversed(PAIR))
sync_named(**OPTIONS)  # XST101
sync_named(**MANAGED_OPTIONS)
forward(ExternalStream(1))  # XST101
forward(s=ExternalStream(1))  # XST101
forward(other=ExternalStream(1))
first, *rest = pair_of(2)
rest[0].synchronize()  # XST101
first.synchronize()
a, b = streams(3)
b.query()  # XST102(may)
second_of((torch.npu.Stream(), ExternalStream(4)))  # XST101
second_of((ExternalStream(4), torch.npu.Stream()))
run_off(ExternalStream(5))
with maybe_on(ExternalStream(6), True):
    torch.npu.current_stream().synchronize()  # XST101(may)
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(_HELPERS)
    (tmp_path / "app.py").write_text(_APP)
    return tmp_path


def test_binding_and_unpacking_across_modules(project: Path) -> None:
    findings = analyze_source(_APP, str(project / "app.py"), project=ProjectIndex())
    found = {(f.line, f.code): f.message for f in findings}
    expected = expectations(_APP)
    assert set(found) == set(expected)
    for key, want in expected.items():
        assert ("may be" in found[key]) == want.may, found[key]


def test_literal_flags_of_an_imported_function_choose_its_exported_copy(project: Path) -> None:
    """Point 6 across modules: the module defining ``sync_if`` exports copies of its summary
    learnt with ``True`` and ``False`` for the flag its body tests (interp/variants.py), so
    a call from another module with ``False`` takes the branch without the sink (no false
    alarm) and one with ``True`` reports it at the call."""
    head = "from torch_npu.npu import ExternalStream\n\nfrom pkg.helpers import sync_if\n\n"
    for flag, want in (("False", []), ("True", [(5, "XST101")])):
        app = head + f"sync_if(ExternalStream(1), {flag})\n"
        (project / "app2.py").write_text(app)
        findings = analyze_source(app, str(project / "app2.py"), project=ProjectIndex())
        assert [(f.line, f.code) for f in findings] == want, flag
