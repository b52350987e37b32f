"""Summaries polymorphic in the receiver, counted on a generated project (issue 38, Cost).

One base class in its own module: its ``__init__`` stores what ``self._make(h)`` returns, its
``flush`` synchronizes that. Many subclasses in other modules override ``_make`` (half of
them with an ExternalStream, half with a managed stream) and call ``Sub(h).flush()``. Python
runs each subclass's ``_make`` from the base's ``__init__``; the analysis keeps that call in
the base's summary and resolves it on each subclass where the summary is applied, so no body
runs twice: the base's bodies run once, for n subclasses as for 10n, and the whole run's
body executions grow linearly. Counted (body executions), never timed.

The second shape keeps no result: the base's ``flush`` synchronizes what ``self._stream()``
returns where it is made, its ``step`` calls ``flush``, and the subclasses override
``_stream`` and call ``Sub().step()``; the call is kept as a path of ``self`` all the same.

The same family on ordinary parameters (``def use(m): m.stream().synchronize()``, a property
read through an object ``__init__`` was given): the helper's bodies run once, for n classes
passed there as for 10n, each class's method or getter resolved where its instance is passed.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from extstream_lint.analysis.driver import projects
from extstream_lint.analysis.interp.calls import Calls
from extstream_lint.frontends import cli
from extstream_lint.project import sources

_BASE = """\
import torch


class Base:
    def __init__(self, h):
        self.s = self._make(h)

    def _make(self, h):
        return torch.npu.Stream()

    def flush(self):
        self.s.synchronize()
"""

_EXTERNAL = """\
from torch_npu.npu import ExternalStream
from gen.base import Base


class Sub{n}(Base):
    def _make(self, h):
        return ExternalStream(h)


def run(h):
    Sub{n}(h).flush()
"""

_MANAGED = """\
import torch
from gen.base import Base


class Sub{n}(Base):
    def _make(self, h):
        return torch.npu.Stream(priority=-1)


def run(h):
    Sub{n}(h).flush()
"""

#: The line of ``Sub(h).flush()`` in a subclass module.
_CALL_LINE = 11

#: The same family where the base never stores the call's result: ``self._stream()`` is
#: synchronized where it is made, one base method (``step``) calling the other (``flush``).
_CALL_BASE = """\
import torch


class Base:
    def _stream(self):
        return torch.npu.Stream()

    def flush(self):
        self._stream().synchronize()

    def step(self):
        self.flush()
"""

_CALL_EXTERNAL = """\
from torch_npu.npu import ExternalStream
from gen.base import Base


class Sub{n}(Base):
    def _stream(self):
        return ExternalStream(0x7A000000)


def run(h):
    Sub{n}().step()
"""

_CALL_MANAGED = """\
import torch
from gen.base import Base


class Sub{n}(Base):
    def _stream(self):
        return torch.npu.Stream(priority=-1)


def run(h):
    Sub{n}().step()
"""

#: The same family on ordinary parameters: a helper synchronizes what its argument's
#: ``stream()`` returns, a class given an object in ``__init__`` what its ``current``
#: property reads; the classes of other modules passed there decide (no base class).
_PARAM_BASE = """\
import torch


def use(m):
    m.stream().synchronize()


class Holder:
    def __init__(self, m):
        self.m = m

    def step(self):
        self.m.current.synchronize()
"""

_PARAM_EXTERNAL = """\
from torch_npu.npu import ExternalStream
from gen.base import Holder, use


class Sub{n}:
    def stream(self):
        return ExternalStream(0x7A000000)


def run(h):
    use(Sub{n}())
"""

_PARAM_MANAGED = """\
import torch
from gen.base import Holder, use


class Sub{n}:
    @property
    def current(self):
        return torch.npu.Stream(priority=-1)

def run(h):
    Holder(Sub{n}()).step()
"""

_PROPERTY_EXTERNAL = """\
from torch_npu.npu import ExternalStream
from gen.base import Holder, use


class Sub{n}:
    @property
    def current(self):
        return ExternalStream(0x7A000000)

def run(h):
    Holder(Sub{n}()).step()
"""

_METHOD_MANAGED = """\
import torch
from gen.base import Holder, use


class Sub{n}:
    def stream(self):
        return torch.npu.Stream(priority=-1)


def run(h):
    use(Sub{n}())
"""

#: The shapes counted: the base's text, an external and a managed subclass module.
_SHAPES = {
    "stored": (_BASE, _EXTERNAL, _MANAGED),
    "operated_on": (_CALL_BASE, _CALL_EXTERNAL, _CALL_MANAGED),
    "parameter_method": (_PARAM_BASE, _PARAM_EXTERNAL, _METHOD_MANAGED),
    "parameter_property": (_PARAM_BASE, _PROPERTY_EXTERNAL, _PARAM_MANAGED),
}


def _project(root: Path, size: int, shape: str = "stored") -> Path:
    base, external, managed = _SHAPES[shape]
    gen = root / "gen"
    gen.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    (gen / "__init__.py").write_text("", encoding="utf-8")
    (gen / "base.py").write_text(base, encoding="utf-8")
    for n in range(size):
        text = (external if n % 2 == 0 else managed).format(n=n)
        (gen / f"sub{n:04d}.py").write_text(text, encoding="utf-8")
    return root


def _run(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[set[tuple[str, int]], Counter]:
    projects._INDEXES.clear()
    sources._SHARED.clear()
    runs: Counter = Counter()
    original = Calls._run_function

    def counted(self, node, parent, cls, special=None, fixed=None):  # type: ignore[no-untyped-def]
        runs[(self.module_name, node.name.value)] += 1
        return original(self, node, parent, cls, special, fixed)

    monkeypatch.setattr(Calls, "_run_function", counted)
    options = cli.Options(
        (str(root / "gen"),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=1,
        cache=False,
    )
    found = {(Path(i.path).name, i.finding.line) for i in cli.run(options)}
    monkeypatch.undo()
    return found, runs


@pytest.mark.parametrize("shape", sorted(_SHAPES))
@pytest.mark.parametrize("size", [8])
def test_each_override_is_followed_and_no_base_body_runs_per_subclass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int, shape: str
) -> None:
    small, small_runs = _run(_project(tmp_path / "small", size, shape), monkeypatch)
    large, large_runs = _run(_project(tmp_path / "large", 10 * size, shape), monkeypatch)
    for found, count in ((small, size), (large, 10 * size)):
        expected = {(f"sub{n:04d}.py", _CALL_LINE) for n in range(0, count, 2)}
        assert found == expected  # the external overrides, at their calls; no managed one
    base_small = {k: v for k, v in small_runs.items() if k[0] == "gen.base"}
    base_large = {k: v for k, v in large_runs.items() if k[0] == "gen.base"}
    assert base_small and base_small == base_large  # the base's bodies: as often for 10n
    assert set(base_small.values()) == {1}  # each interpreted once, whatever overrides it
    total_small, total_large = sum(small_runs.values()), sum(large_runs.values())
    per_module = (total_large - total_small) / (9 * size)
    # linear: the subclasses' own bodies, a fixed number of runs per module
    assert total_large <= 10 * total_small
    assert per_module <= max(v for k, v in small_runs.items() if k[0] != "gen.base") * 2


def test_the_message_names_the_call_on_self_and_the_base_line(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", 2, "operated_on")
    projects._INDEXES.clear()
    sources._SHARED.clear()
    options = cli.Options(
        (str(root / "gen"),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=1,
        cache=False,
    )
    (found,) = cli.run(options)
    assert Path(found.path).name == "sub0000.py"
    message = found.finding.message
    assert message.startswith(
        "XST101 step() calls synchronize() on what self._stream() returns through self.flush() ("
    )
    assert "base.py:9)" in message
