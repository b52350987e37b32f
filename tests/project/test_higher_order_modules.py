"""Higher-order code across modules (issue 27, point 2): a decorator factory, a callback
helper and a forwarding wrapper defined in one module and used in another. The recorded
calls of a function-valued parameter and a closure's captured values travel in the
module's summary (also through the cache, pickled), and are made at the importer's calls.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from tests.lint.test_cases import expectations

_TOOLS = """\
import functools

import torch
from torch_npu.npu import ExternalStream

EXT = ExternalStream(0x10)


def runs_on(stream):
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with torch.npu.stream(stream):
                return fn(*args, **kwargs)

        return wrapper

    return deco


def apply(fn, s):
    return fn(s)


def under(s, fn):
    with torch.npu.stream(s):
        fn()


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


def forward(*args, **kwargs):
    return apply(*args, **kwargs)


on_ext = runs_on(EXT)
on_managed = runs_on(torch.npu.Stream())
"""

_APP = """\
import torch
from torch_npu.npu import ExternalStream

from pkg.tools import apply, forward, on_ext, on_managed, runs_on, traced, under


def sync(s):
    s.synchronize()


def body():
    torch.npu.current_stream().synchronize()


@runs_on(ExternalStream(1))
def step():
    torch.npu.current_stream().query()


@runs_on(torch.npu.Stream())
def step_managed():
    torch.npu.current_stream().query()


@on_ext
def step_hub():
    torch.npu.current_stream().query()


@on_managed
def step_hub_managed():
    torch.npu.current_stream().query()


@traced
def traced_sync(s):
    s.synchronize()


step()  # XST102
step_managed()
step_hub()  # XST102
step_hub_managed()
apply(sync, ExternalStream(2))  # XST101
apply(sync, torch.npu.Stream())
under(ExternalStream(3), body)  # XST101
under(torch.npu.Stream(), body)
traced_sync(ExternalStream(4))  # XST101
traced_sync(torch.npu.Stream())
forward(sync, ExternalStream(5))  # XST101
forward(sync, s=ExternalStream(5))  # XST101
forward(sync, torch.npu.Stream())
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "tools.py").write_text(_TOOLS)
    (tmp_path / "app.py").write_text(_APP)
    (tmp_path / "pyproject.toml").write_text("")
    return tmp_path


def _expected() -> set[tuple[int, str]]:
    return set(expectations(_APP))


def test_file_by_file(project: Path) -> None:
    app = project / "app.py"
    findings = analyze_source(_APP, str(app), project=ProjectIndex())
    assert {(f.line, f.code) for f in findings} == _expected()
    by_line = {f.line: f.message for f in findings}
    step_line = _APP.splitlines().index("step()  # XST102") + 1
    assert "(made current pkg/tools.py:13)" in by_line[step_line], by_line[step_line]


@pytest.mark.parametrize("cache", ["--no-cache", "cold", "warm"])
def test_the_cli_agrees_with_and_without_the_cache(project: Path, cache: str) -> None:
    flags = ["--no-cache"] if cache == "--no-cache" else []
    runs = 2 if cache == "warm" else 1
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-m", "extstream_lint", "--isolated", *flags, "app.py"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1, done.stderr
    found = set()
    for line in done.stdout.splitlines():
        _path, number, _column, rest = line.split(":", 3)
        found.add((int(number), rest.split()[0]))
    assert found == _expected()
