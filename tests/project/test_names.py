"""Imports narrowed by name: a module is handed a stream only through a name it spells.

A hub that re-exports an adapter is imported by everything; only the modules that spell
one of the names through which it hands out a stream (or reaches a refused operation) are
analysed, or followed by a summary. Every way a value really travels must survive the
narrowing: a re-exported module object, a package's submodule reached by attribute, ``*``,
a global that one helper sets and another reads, a base class. Each case is checked
for its finding (recall) and the silent importer for no parse at all (the saving).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extstream_lint.analysis.driver import index, projects
from extstream_lint.frontends import cli
from extstream_lint.project import graph, modules, names, sources
from extstream_lint.project.markers import might_use_external_streams

_ADAPTER = (
    "from torch_npu.npu import ExternalStream\n\n\n"
    "def make_ext(ptr):\n    return ExternalStream(ptr)\n"
)


def _write(root: Path, files: dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'n'\n", encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _lint(root: Path) -> tuple[set[tuple[str, int, str]], set[str]]:
    """The findings of a CLI run over the tree, and the names of the files it parsed."""
    projects._INDEXES.clear()
    sources._SHARED.clear()
    before = index.PARSES.copy()
    options = cli.Options(
        (str(root),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=1,
        cache=False,
    )
    found = {
        (i.path.replace(os.sep, "/").split(f"{root.name}/", 1)[-1], i.finding.line, i.finding.code)
        for i in cli.run(options)
    }
    parsed = index.PARSES - before
    return found, {os.path.relpath(p, root).replace(os.sep, "/") for p in parsed}


_CASES = {
    "a module object re-exported under another name": (
        {
            "relay.py": "import adapter\n\nregistry = adapter\n",
            "user.py": "from relay import registry\n\n\ndef run(p):\n"
            "    registry.make_ext(p).synchronize()\n",
        },
        ("user.py", 5, "XST101"),
    ),
    "a package's submodule reached by attribute": (
        {
            "pkg/__init__.py": "from . import sub\n",
            "pkg/sub.py": "from adapter import make_ext\n",
            "user.py": "import pkg\n\n\ndef run(p):\n    pkg.sub.make_ext(p).query()\n",
        },
        ("user.py", 5, "XST102"),
    ),
    "a star re-export": (
        {
            "relay.py": "from adapter import *\n",
            "user.py": "from relay import make_ext\n\n\ndef run(p):\n"
            "    make_ext(p).synchronize()\n",
        },
        ("user.py", 5, "XST101"),
    ),
    "a global one helper sets and another reads": (
        {
            "relay.py": "from adapter import make_ext\n\nCURRENT = None\n\n\n"
            "def open_stream(p):\n    global CURRENT\n    CURRENT = make_ext(p)\n\n\n"
            "def get():\n    return CURRENT\n",
            "user.py": "from relay import get\n\n\ndef run():\n    get().synchronize()\n",
        },
        ("user.py", 5, "XST101"),
    ),
    "a base class that holds the stream": (
        {
            "base.py": "from adapter import make_ext\n\n\nclass Base:\n"
            "    def __init__(self, p):\n        self.stream = make_ext(p)\n",
            "user.py": "from base import Base\n\n\nclass Mine(Base):\n    def run(self):\n"
            "        self.stream.synchronize()\n",
        },
        ("user.py", 6, "XST101"),
    ),
    "a sink in a module reached through a name the hub binds": (
        {
            "sinks.py": "def drain(s):\n    s.synchronize()\n",
            "hub.py": "import os\nfrom sinks import drain\nfrom adapter import make_ext\n",
            "user.py": "from hub import drain, make_ext\n\n\ndef run(p):\n    drain(make_ext(p))\n",
        },
        ("user.py", 5, "XST101"),
    ),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_values_travel_through_every_kind_of_binding(tmp_path: Path, case: str) -> None:
    files, expected = _CASES[case]
    _write(tmp_path, {"adapter.py": _ADAPTER, **files})
    found, _ = _lint(tmp_path)
    assert expected in found, found


def test_importers_of_a_hub_that_spell_none_of_its_names_are_never_parsed(
    tmp_path: Path,
) -> None:
    # The standard library's shape: ``os`` re-exports the adapter and everything imports
    # ``os``; ``inspect`` uses ``os.path`` and ``os.sep`` only.
    files = {
        "adapter.py": _ADAPTER,
        "hub.py": "import posixpath as path\nfrom adapter import make_ext\nsep = '/'\n",
        "posixpath.py": "def join(a, b):\n    return a + b\n",
        "user.py": "import hub\n\n\ndef run(p):\n    hub.make_ext(p).synchronize()\n",
    }
    for n in range(5):
        files[f"plain{n}.py"] = "import hub\n\n\ndef f(a):\n    return hub.path.join(a, hub.sep)\n"
    _write(tmp_path, files)
    found, parsed = _lint(tmp_path)
    assert found == {("user.py", 5, "XST101")}
    assert not {name for name in parsed if name.startswith("plain")}, parsed


def test_a_summary_follows_only_the_imports_whose_names_it_spells(tmp_path: Path) -> None:
    files = {
        "adapter.py": _ADAPTER,
        "sinks.py": "def drain(s):\n    s.synchronize()\n",
        "other.py": "def wait_all(xs):\n    for x in xs:\n        x.wait()\n",
        "relay.py": "import other\nfrom sinks import drain\n\n\ndef relay(s):\n    drain(s)\n",
        "user.py": "from adapter import make_ext\nfrom relay import relay\n\n\n"
        "def run(p):\n    relay(make_ext(p))\n",
    }
    _write(tmp_path, files)
    found, parsed = _lint(tmp_path)
    assert found == {("user.py", 6, "XST101")}
    # relay binds ``other`` whole, so it may reach it: followed. A module nothing spells
    # (or binds) is not: here every import is one of the two.
    assert {"sinks.py", "relay.py", "other.py"} <= parsed


def test_names_are_those_bound_by_statements_that_carry_and_the_state_they_spell() -> None:
    text = (
        '"""The global name of this module is its state."""\n'  # prose, not a declaration
        "import torch\nfrom adapter import make_ext as mk\n\nCACHE = {}\nUNRELATED = 1\n"
        "name = 'n'\n\n\ndef helper():\n    return 2\n\n\n"
        "def fill(p):\n    CACHE[p] = mk(p)\n    helper()\n    return name\n\n\n"
        "def read(p):\n    return CACHE[p]\n\n\ndef plain():\n    return UNRELATED\n\n\n"
        "def setter(p):\n    global CURRENT\n    CURRENT = p\n\n\n"
        "if True:\n    alias = read\n"
    )
    found, state = names.statements(ast.parse(text), text)
    assert state == {"CACHE", "UNRELATED", "name", "CURRENT", "alias"}
    carried = names.carried(found, state, frozenset({"make_ext"}))
    # ``helper`` is called by a statement that carries one, but hands nothing out itself.
    assert carried == {"mk", "CACHE", "name", "fill", "read", "alias"}
    assert not names.carried(found, state, frozenset({"other"}))


def test_the_graph_reads_each_file_at_most_once_for_its_names(tmp_path: Path) -> None:
    files = {"adapter.py": _ADAPTER, "hub.py": "from adapter import make_ext\nimport os\n"}
    for n in range(20):
        files[f"m{n}.py"] = f"import hub\nimport m{(n + 1) % 20}\n\nx = hub.os\n"
    _write(tmp_path, files)
    with modules.one_run():
        before = sources.OPENS.copy()
        run_graph = graph.graph_for((), False)
        verdicts = [run_graph.receives(str(tmp_path / f"m{n}.py")) for n in range(20)]
        opened = sources.OPENS - before
    assert not any(verdicts)
    assert opened and max(opened.values()) == 1, opened
    assert not might_use_external_streams(files["m0.py"])


def test_names_of_a_ring_are_found_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each member binds the next whole: the adapter's names travel the ring against the
    # sort order of the members. A round-robin fixpoint would take a round per member.
    size = 400
    files = {"adapter.py": _ADAPTER, "pkg/__init__.py": ""}
    for n in range(size):
        link = "import adapter\n" if n == 0 else ""
        files[f"pkg/m{n}.py"] = f"{link}from pkg import m{(n + 1) % size}\n"
    _write(tmp_path, files)
    calls: list[str] = []
    original = graph.ImportGraph._names_of

    def counted(self: graph.ImportGraph, path: str, current: dict) -> frozenset[str]:
        calls.append(path)
        return original(self, path, current)

    monkeypatch.setattr(graph.ImportGraph, "_names_of", counted)
    with modules.one_run():
        run_graph = graph.graph_for((), False)
        assert "make_ext" in run_graph.carried(str(tmp_path / "pkg" / "m5.py"))
    assert len(calls) <= 3 * size, len(calls)


_TOKENS = ["make_ext", "remake_ext", "make_ext2", "_make_ext", "x", "hub", ".", " ", "\n", "#"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), max_size=30),
    st.frozensets(st.sampled_from(["make_ext", "hub", "x", "ext", "make"]), max_size=5),
    st.integers(min_value=0, max_value=40),
)
def test_spelled_is_the_wanted_names_among_the_words(
    tokens: list[str], wanted: frozenset[str], padding: int
) -> None:
    # Both ways (a search per name for a few, the text's words for many) agree with the
    # definition: the names of ``wanted`` that are whole words of the text.
    text = "".join(tokens)
    many = wanted | {f"filler{n}" for n in range(padding)}
    assert names.spelled(text, wanted) == wanted & names.words(text)
    assert names.spelled(text, many) == many & names.words(text)
