"""A multi-module project linted as editors, flake8 and the CLI see it.

``fixtures/proj`` never spells ``ExternalStream`` outside its adapter package: streams
reach ``app.py`` through re-exports, ``import ... as``, star imports, relative imports,
helpers, holder classes and ``@contextmanager`` helpers. Inline ``# XST1xx`` comments state
the expected findings (as in ``tests/lint_cases``); every other line must stay silent.
The same findings must come out file by file, from stdin, and for the whole directory,
through flake8 and through ``extstream-lint -j 2``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from tests.lint.test_cases import expectations

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "proj"
_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):\d+: (?P<code>XST\d{3}) (?P<message>.*)$")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A private copy: runs may write caches next to it."""
    target = tmp_path / "proj"
    shutil.copytree(FIXTURE, target)
    return target


def _expected(root: Path) -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for line, code in expectations(path.read_text(encoding="utf-8")):
            found.add((relative, line, code))
    return found


def _parse(output: str) -> set[tuple[str, int, str]]:
    found = set()
    for line in output.splitlines():
        match = _LINE.match(line)
        assert match, line
        path = match["path"].removeprefix("./")
        found.add((path, int(match["line"]), match["code"]))
    return found


def test_fixture_has_cross_module_cases() -> None:
    expected = _expected(FIXTURE)
    assert {path for path, _, _ in expected} == {
        "app.py",
        "chain.py",
        "hazards.py",
        "pkg/sub/user.py",
        "via_submodule.py",
    }
    assert len(expected) >= 8


def test_file_by_file_as_an_editor_does(project: Path) -> None:
    index = ProjectIndex()
    actual = set()
    for path in sorted(project.rglob("*.py")):
        relative = path.relative_to(project).as_posix()
        source = path.read_text(encoding="utf-8")
        for finding in analyze_source(source, str(path), project=index):
            actual.add((relative, finding.line, finding.code))
    assert actual == _expected(project)


def test_messages_give_provenance_across_files(project: Path) -> None:
    path = project / "app.py"
    messages = {
        f.line: f.message
        for f in analyze_source(path.read_text(encoding="utf-8"), str(path), project=ProjectIndex())
    }
    lines = path.read_text(encoding="utf-8").splitlines()

    def at(text: str) -> str:
        return messages[next(i for i, line in enumerate(lines, 1) if text in line)]

    assert "sync() calls synchronize() on its argument 's' (pkg/sub/helpers.py:2)" in at(
        "sync(ext)"
    )
    assert "(created pkg/streams.py:21)" in at("st.DEFAULT.query()")
    assert "flush() calls synchronize() on self.stream (pkg/streams.py:18)" in at(
        "Holder(ext).flush()"
    )


def test_chain_of_plain_helper_modules_names_each_helper(project: Path) -> None:
    path = project / "chain.py"
    lines = path.read_text(encoding="utf-8").splitlines()
    messages = {
        f.line: f.message
        for f in analyze_source("\n".join(lines) + "\n", str(path), project=ProjectIndex())
    }
    line = next(i for i, text in enumerate(lines, 1) if "relay.sync_all(relay.get_stream" in text)
    assert messages[line].startswith(
        "XST101 relay.sync_all() calls synchronize() on its argument 's' through mid.settle() "
        "through low.drain() (pkg/sub/low.py:2), "
    )


def _run(args: list[str], cwd: Path, stdin: str | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_directory_through_flake8_and_the_cli(project: Path) -> None:
    expected = _expected(project)
    flake8 = _run(["flake8", "--isolated", "--select=XST", "."], project)
    cli = _run(["extstream_lint", "--isolated", "-j", "2", "."], project)
    assert _parse(flake8) == expected
    assert _parse(cli) == expected


@pytest.mark.parametrize("name", ["app.py", "chain.py", "pkg/sub/user.py"])
def test_stdin_through_flake8_and_the_cli(project: Path, name: str) -> None:
    text = (project / name).read_text(encoding="utf-8")
    expected = {item for item in _expected(project) if item[0] == name}
    flake8 = _run(
        ["flake8", "--isolated", "--select=XST", "--stdin-display-name", name, "-"], project, text
    )
    cli = _run(["extstream_lint", "--isolated", "--stdin-filename", name, "-"], project, text)
    assert _parse(flake8) == expected
    assert _parse(cli) == expected


def test_pre_filter_opens_files_that_import_the_adapter(project: Path) -> None:
    from extstream_lint.project.prefilter import might_use_external_streams, should_analyse

    app = (project / "app.py").read_text(encoding="utf-8")
    plain = (project / "plain.py").read_text(encoding="utf-8")
    assert not might_use_external_streams(app)  # the old test alone never opened it
    assert should_analyse(app, str(project / "app.py"))
    assert not should_analyse(plain, str(project / "plain.py"))  # sinks alone: no source
    chain = (project / "chain.py").read_text(encoding="utf-8")
    # ``from pkg.sub import relay``: the plain package's submodule reaches the adapter.
    assert should_analyse(chain, str(project / "chain.py"))
    assert not should_analyse(app, "stdin")  # no place in a project: markers only


@pytest.mark.parametrize(
    ("name", "opened"), [("via_submodule.py", True), ("plain_submodule.py", False)]
)
def test_pre_filter_follows_from_package_import_submodule(
    project: Path, name: str, opened: bool
) -> None:
    # ``from pkg.sub import maker``: pkg/sub/__init__.py is empty, pkg/sub/maker.py hands out
    # external streams; ``from pkg.sub import helpers`` imports a module that never does.
    from extstream_lint.project.prefilter import should_analyse

    path = project / name
    assert should_analyse(path.read_text(encoding="utf-8"), str(path)) is opened
    found = {(f.line, f.code) for f in analyze_source(path.read_text(), str(path))}
    assert found == {(line, code) for line, code in expectations(path.read_text())}


def test_an_imported_module_with_a_bad_string_escape_does_not_break_its_importer(
    tmp_path: Path,
) -> None:
    # libcst parses ``"\N{NOSUCHNAME}"``, but evaluating it (to read ``__all__``) raises: the
    # import is then not followed, and the importer's own finding still comes out.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "bad.py").write_text(
        'import torch_npu\n__all__ = ["\\N{NOSUCHNAME}"]\n\n\n'
        "def make(h):\n    return torch_npu.npu.ExternalStream(h)\n"
    )
    app = tmp_path / "app.py"
    app.write_text(
        "import torch\nfrom pkg.bad import make\n\n"
        "ext = torch.npu.ExternalStream(handle)\next.query()\nmake(1).query()\n"
    )
    findings = analyze_source(app.read_text(), str(app), project=ProjectIndex(()))
    assert [(f.line, f.code) for f in findings] == [(5, "XST102")], findings


_CYCLE = {
    "cyc/__init__.py": "",
    "cyc/a.py": (
        "from torch_npu.npu import ExternalStream\n"
        "from cyc.b import helper_b\n\n\n"
        "def make(ptr):\n"
        "    return helper_b(ExternalStream(ptr))\n"
    ),
    "cyc/b.py": (
        "from cyc.a import make\n\n\n"
        "def helper_b(s):\n"
        "    return s\n\n\n"
        "def use(ptr):\n"
        "    make(ptr).synchronize()\n"
    ),
}


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
@pytest.mark.parametrize("cached", [False, True])
def test_an_import_cycle_gives_the_same_findings_in_any_order(
    tmp_path: Path, order: tuple[str, str], cached: bool
) -> None:
    """Summaries computed inside an import cycle depend on where the cycle was entered, so
    they are not reused: b's finding may not depend on whether a was linted first (in the
    same process, or by an earlier process through the disk cache)."""
    from extstream_lint.analysis.driver.cache import DiskCache

    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    for name, text in _CYCLE.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")

    def lint(stem: str) -> set[tuple[str, int, str]]:
        index = ProjectIndex(cache=DiskCache() if cached else None)
        path = tmp_path / "cyc" / f"{stem}.py"
        source = path.read_text(encoding="utf-8")
        return {(stem, f.line, f.code) for f in analyze_source(source, str(path), project=index)}

    shared = ProjectIndex(cache=DiskCache() if cached else None)
    in_one_process = set()
    for stem in order:
        path = tmp_path / "cyc" / f"{stem}.py"
        found = analyze_source(path.read_text(encoding="utf-8"), str(path), project=shared)
        in_one_process |= {(stem, f.line, f.code) for f in found}
    one_by_one = lint(order[0]) | lint(order[1])  # a fresh index each: new processes
    assert in_one_process == one_by_one == {("b", 9, "XST101")}


_NAMESPACE_USER = (
    "from proj.ns import streams\n"
    "import proj.ns.streams\n"
    "import proj.ns.streams as ps\n\n\n"
    "def a(ptr):\n"
    "    streams.make_ext(ptr).synchronize()\n"
    "    proj.ns.streams.make_ext(ptr).synchronize()\n"
    "    ps.make_ext(ptr).synchronize()\n"
)
_NAMESPACE_ADAPTER = (
    "from torch_npu.npu import ExternalStream\n\n\ndef make_ext(ptr):\n"
    "    return ExternalStream(ptr)\n"
)


def test_namespace_packages_and_a_submodule_that_appears_later(tmp_path: Path) -> None:
    """PEP 420 packages (no ``__init__.py``) are followed by every import spelling, and a
    cached "nothing to see" verdict ends when a submodule appears in the namespace."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.extstream-lint]\nsrc = ["src"]\n', encoding="utf-8"
    )
    package = tmp_path / "src" / "proj"
    (package / "io").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "io" / "__init__.py").write_text("", encoding="utf-8")
    (package / "io" / "user.py").write_text(_NAMESPACE_USER, encoding="utf-8")
    user = ["extstream_lint", "src/proj/io/user.py"]
    assert _parse(_run(user, tmp_path)) == set()  # no proj.ns yet: nothing to follow
    (package / "ns").mkdir()
    (package / "ns" / "streams.py").write_text(_NAMESPACE_ADAPTER, encoding="utf-8")
    expected = {("src/proj/io/user.py", line, "XST101") for line in (7, 8, 9)}
    assert _parse(_run(user, tmp_path)) == expected  # the warm verdict did not hold
    assert _parse(_run([*user, "--no-cache"], tmp_path)) == expected


def test_import_cycles_of_plain_helper_modules_terminate(tmp_path: Path) -> None:
    # app -> one -> two -> one ...: followed once each; the sink two imports away is seen.
    (tmp_path / "cyc").mkdir()
    (tmp_path / "cyc" / "__init__.py").write_text("")
    (tmp_path / "cyc" / "one.py").write_text(
        "from cyc import two\n\n\ndef sync(s):\n    two.sync(s)\n"
    )
    (tmp_path / "cyc" / "two.py").write_text(
        "from cyc import one\n\n\ndef sync(s):\n    s.synchronize()\n\n\n"
        "def back(s):\n    one.sync(s)\n"
    )
    app = tmp_path / "app.py"
    app.write_text(
        "from torch_npu.npu import ExternalStream\nfrom cyc import one\n\n"
        "one.sync(ExternalStream(1))\none.sync(None)\n"
    )
    findings = analyze_source(app.read_text(), str(app), project=ProjectIndex())
    assert [(f.line, f.code) for f in findings] == [(4, "XST101")]


@pytest.mark.parametrize(
    ("text", "external", "refers"),
    [
        ("from torch_npu.npu import ExternalStream\n", True, True),
        ("import torch\ns = torch.npu.ExternalStream(p)\n", True, True),
        ("s = npu.ExternalStream(p)  # npu from a project module\n", True, True),
        ("x = input()\nExternalStream = object\n", False, False),  # "npu" inside a word
        ('"""Inputs are distributed by an accelerator."""\n', False, False),  # prose, no torch
        ("import torch.distributed as dist\n", False, True),
        ("import torch\ntorch.accelerator.synchronize()\n", False, True),
        ("def f(s):\n    s.synchronize()\n", False, True),  # a refused method by name
    ],
)
def test_markers_spell_torch_npu_not_words_that_contain_npu(
    text: str, external: bool, refers: bool
) -> None:
    # Half the standard library says "input": counted as torch_npu, it made every module
    # that imports one of them "matter", and the index summarised them all.
    from extstream_lint.project.markers import may_reach_refused, might_use_external_streams

    assert might_use_external_streams(text) is external
    assert may_reach_refused(text) is refers
