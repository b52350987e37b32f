"""Views of a base class defined in another module (issue 27: dispatch on ``self``).

A subclass's inherited ``__init__`` calling ``self._make()`` runs the subclass's override,
wherever the base was defined: the base's method bodies are read from its module's text and
run with ``self`` an instance of the subclass (:mod:`extstream_lint.analysis.interp.foreign`).
The conformance suite (``classes/base_in_*``, ``classes/*_in_module``) holds the constructs;
these tests hold what the project model must do for them: the finding follows an edit of the
base's text on a warm cache (even one that changes no fact of the base's summary), a
subclass that overrides nothing that matters costs no read of the base, and modules that
import the subclass see its views.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.cache import DiskCache
from extstream_lint.analysis.index import PARSES, ProjectIndex

BASE = """\
import torch


class Base:
    def __init__(self, h):
        self.s = self._make(h)

    def _make(self, h):
        return torch.npu.Stream()

    def flush(self):
        self.s.synchronize()
"""

MAIN = """\
import torch
from torch_npu.npu import ExternalStream
from base import Base


class Child(Base):
    def _make(self, h):
        return ExternalStream(h)


def run(h):
    Child(h).flush()
"""

PLAIN = """\
from base import Base


class Plain(Base):
    def name(self):
        return "plain"


def run(h):
    Plain(h).flush()
"""

USE = """\
from main import Child


def elsewhere(h):
    Child(h).flush()
"""

#: The same facts for ``Base`` itself (the maker's result, made on the same line), but the
#: call no longer dispatches on ``self``: the subclass's override is not run.
DISPATCHED = "self.s = self._make(h)"
NOT_DISPATCHED = "self.s = Base._make(self, h)"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n", encoding="utf-8")
    for name, text in (("base", BASE), ("main", MAIN), ("plain", PLAIN), ("use", USE)):
        (root / f"{name}.py").write_text(text, encoding="utf-8")
    return root


def _lint(path: Path, index: ProjectIndex) -> list[tuple[int, str, str]]:
    source = path.read_text(encoding="utf-8")
    return [(f.line, f.code, f.message) for f in analyze_source(source, str(path), project=index)]


def _edit(path: Path, old: str, new: str, tick: int) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    stamp = os.stat(path).st_mtime_ns + tick * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_the_override_runs_in_the_inherited_init(project: Path) -> None:
    found = _lint(project / "main.py", ProjectIndex())
    assert [(line, code) for line, code, _ in found] == [(12, "XST101")]
    # The message names where it happens and where the stream was made, in the base's file.
    assert "(base.py:12)" in found[0][2] and "base.py:6" in found[0][2]
    assert _lint(project / "plain.py", ProjectIndex()) == []
    assert _lint(project / "base.py", ProjectIndex()) == []


def test_importers_of_the_subclass_see_its_views(project: Path) -> None:
    found = _lint(project / "use.py", ProjectIndex())
    assert [(line, code) for line, code, _ in found] == [(5, "XST101")]


def test_an_edit_of_the_base_text_reaches_the_subclass_on_a_warm_cache(project: Path) -> None:
    base, main, use = project / "base.py", project / "main.py", project / "use.py"
    cold = ProjectIndex(cache=DiskCache())
    assert [line for line, _, _ in _lint(main, cold)] == [12]
    assert [line for line, _, _ in _lint(use, cold)] == [5]
    digest_before = cold.export_digest(os.path.abspath(base), "Base")
    _edit(base, DISPATCHED, NOT_DISPATCHED, 1)
    warm = ProjectIndex(cache=DiskCache())
    assert _lint(main, warm) == []
    assert _lint(use, warm) == []
    # What the edit changed is the body a view runs, not a fact of Base's own summary:
    # only the text it was read from tells the readers.
    assert warm.export_digest(os.path.abspath(base), "Base") == digest_before
    _edit(base, NOT_DISPATCHED, DISPATCHED, 2)
    again = ProjectIndex(cache=DiskCache())
    assert [line for line, _, _ in _lint(main, again)] == [12]
    assert [line for line, _, _ in _lint(use, again)] == [5]


def test_the_base_is_read_only_for_a_subclass_that_needs_a_view(project: Path) -> None:
    base, main, plain = project / "base.py", project / "main.py", project / "plain.py"
    path = os.path.abspath(base)
    cold = ProjectIndex(cache=DiskCache())
    _lint(plain, cold)
    _lint(main, cold)  # every summary is kept
    before = PARSES[path]
    warm = DiskCache()
    source = plain.read_text(encoding="utf-8")
    assert analyze_source(source, str(plain), project=ProjectIndex(cache=warm), kept=False) == []
    assert PARSES[path] == before  # Plain overrides nothing its base's methods read
    source = main.read_text(encoding="utf-8")
    found = analyze_source(source, str(main), project=ProjectIndex(cache=warm), kept=False)
    assert [f.line for f in found] == [12]
    assert PARSES[path] == before + 1  # Child overrides the maker: the base's body is read
