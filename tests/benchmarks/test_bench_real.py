"""benchmarks/bench_real.py is run by hand; this keeps its pieces from rotting.

Its import counter and hub choice, its overlay writer and its edits run on toy trees (a
package, and a plain directory like the copied standard library), and the linter, run as
the benchmark runs it (the CLI on the tree, flake8 on the two files, stdin), must report
exactly the overlay's two misuses: if the overlay or the findings parser drifted, the
benchmark would report MISSED on every real corpus.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_real", ROOT / "benchmarks/bench_real.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_real"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("bench_real", None)


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/core.py": "import os\n\nthing = x = y = 1\n",
    "pkg/a.py": "from pkg import core\nfrom . import b\n",
    "pkg/b.py": "from .core import thing\nimport pkg.a\n",
    "pkg/c.py": "from pkg.core import x\nfrom pkg import sub\n\n\n"
    + "def f():\n    return x\n" * 5,
    "pkg/sub/__init__.py": "",
    "pkg/sub/d.py": "from ..core import y\nfrom .. import a\n",
}

FLAT = {
    "lib/os.py": "import sys\n",
    "lib/shutil.py": "import os\nimport fnmatch\n",
    "lib/fnmatch.py": "import os\nimport shutil\n",
    "lib/typing.py": "",
    "lib/glob.py": "import os, typing\nimport fnmatch\n",
}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "pyproject.toml").write_text("[project]\nname = 'toy'\n")
    return root


def test_counts_imports_as_the_linter_resolves_them(bench: ModuleType, tmp_path: Path) -> None:
    tree = write(tmp_path, PACKAGE)
    graph = bench.import_graph(tree, "pkg")
    # ``from pkg import a`` imports the package and its submodule; relative, two levels up:
    assert graph["pkg.sub.d"] == {"pkg.core", "pkg", "pkg.a"}
    assert graph["pkg.c"] == {"pkg.core", "pkg", "pkg.sub"}
    counts = bench.import_counts(graph)
    assert counts == {"pkg.core": 4, "pkg": 3, "pkg.a": 2, "pkg.b": 1, "pkg.sub": 1}
    assert bench.pick_hub(bench.import_counts(graph)) == "pkg.core"
    assert bench.in_cycles(graph) == 2  # pkg.a <-> pkg.b
    assert bench.editor_file(tree, "pkg", graph, "pkg.core") == "pkg/c.py"


def test_a_plain_directory_is_its_own_root(bench: ModuleType, tmp_path: Path) -> None:
    tree = write(tmp_path, FLAT)
    counts = bench.import_counts(bench.import_graph(tree, "lib"))
    assert counts["os"] == 3 and counts["typing"] == 1
    assert bench.pick_hub(counts) == "os"
    assert bench.in_cycles(bench.import_graph(tree, "lib")) == 2  # shutil <-> fnmatch


@pytest.mark.parametrize(
    ("files", "target", "hub"), [(PACKAGE, "pkg", "pkg.core"), (FLAT, "lib", "os")]
)
def test_the_linter_reports_exactly_the_overlays_misuses(
    bench: ModuleType, tmp_path: Path, files: dict[str, str], target: str, hub: str
) -> None:
    tree = write(tmp_path, files)
    overlay = bench.write_overlay(tree, target, hub)
    assert "xst_bench_external_stream" in overlay.hub_path.read_text()
    lines = {
        (e.path, e.code): (tree / e.path).read_text().splitlines()[e.line - 1]
        for e in overlay.expected
    }
    caller = overlay.caller.relative_to(tree).as_posix()
    helper = overlay.helper.relative_to(tree).as_posix()
    assert lines.keys() == {(caller, "XST101"), (helper, "XST102")}
    assert "drain(s)" in lines[caller, "XST101"] and "s.query()" in lines[helper, "XST102"]

    commands = bench.Commands(jobs=1)
    run = bench.measure(commands.cli(target, cache=False), tree, timeout=600)
    assert bench.check_findings(run, overlay.expected) == "ok: 2/2 found", run.output
    # Every mode the benchmark checks: flake8 file by file, and an editor's buffer on stdin.
    run = bench.measure(commands.flake8(True, "XST", [helper, caller]), tree, timeout=600)
    assert bench.check_findings(run, overlay.expected) == "ok: 2/2 found", run.output
    only_b = [e for e in overlay.expected if e.path == caller]
    run = bench.measure(commands.stdin(caller), tree, timeout=600, stdin=overlay.caller)
    assert bench.check_findings(run, only_b) == "ok: 1/1 found", run.output


def test_an_edit_changes_one_number_in_a_function_body(bench: ModuleType, tmp_path: Path) -> None:
    tree = write(tmp_path, PACKAGE)
    overlay = bench.write_overlay(tree, "pkg", "pkg.core")
    before = overlay.caller.read_text()
    bench.edit_body(overlay.caller, 7)
    bench.edit_body(overlay.hub_path, 8)
    after = overlay.caller.read_text()
    assert after == before.replace("edits = 0  # bench-edit", "edits = 7  # bench-edit")
    assert overlay.hub_path.read_text().endswith("    return 8  # bench-edit\n")
    overlay.caller.write_text("no mark\n")
    with pytest.raises(ValueError, match="expected one"):
        bench.edit_body(overlay.caller, 9)


def test_a_missed_or_extra_finding_is_said_loudly(bench: ModuleType) -> None:
    expected = [bench.Expected("p/b.py", 12, "XST101"), bench.Expected("p/a.py", 11, "XST102")]
    run = bench.Run(1.0, 1.0, bench.OK, "./p/b.py:12:5: XST101 sync\np/c.py:3:1: XST000 no\n")
    verdict = bench.check_findings(run, expected)
    assert verdict.startswith("MISSED p/a.py:11 XST102")
    assert "XST000 reported" in verdict and "1 unexpected: p/c.py:3 XST000" in verdict
    assert bench.check_findings(bench.Run(9.0, 9.0, bench.TIMEOUT), expected).startswith("TIMEOUT")
