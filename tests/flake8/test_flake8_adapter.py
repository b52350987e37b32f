"""The adapter's promises that flake8's output alone cannot show.

* libcst (and the analysis) is imported only for files that pass the text pre-filter, so
  installing the plugin costs almost nothing on ordinary code;
* the plugin works from flake8's ``lines`` and never reopens the file;
* nothing that goes wrong inside the analysis — even libcst failing to import — aborts the
  flake8 run: it becomes one XST000 finding on that file.

flake8 runs in-process inside a small driver subprocess, so ``sys.modules`` can be inspected
and the analysis replaced, without polluting the test process.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from xst_flake8_support import MISUSE

from extstream_lint.frontends.flake8_plugin import ExtStreamChecker

#: Runs flake8 in-process, then prints which of our modules got imported (last stdout line).
_DRIVER = r"""
import gc, json, sys
sabotage = sys.argv[1]
if sabotage == "no-libcst":
    sys.modules["libcst"] = None  # ``import libcst`` now raises ImportError
elif sabotage == "analysis-raises":
    import extstream_lint.analysis as analysis

    def broken(*args, **kwargs):
        raise RuntimeError("simulated analysis bug")

    analysis.analyze_source = broken
from flake8.main.application import Application

app = Application()
app.run(["--isolated", "-j1", *sys.argv[2:]])
print(json.dumps({
    "exit": app.exit_code(),
    "libcst": sys.modules.get("libcst") is not None,
    "analysis": "extstream_lint.analysis" in sys.modules,
    "plugin": "extstream_lint.frontends.flake8_plugin" in sys.modules,
    "gc": gc.get_threshold()[0],
}))
"""


def _drive(tmp_path: Path, sabotage: str, *args: str) -> tuple[dict[str, object], str, str]:
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, sabotage, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    assert lines, f"driver printed nothing (exit {proc.returncode}):\n{proc.stderr}"
    report = json.loads(lines[-1])
    return report, "\n".join(lines[:-1]), proc.stderr


PLAIN = "import torch\n\ns = torch.cuda.Stream()\ns.synchronize()  # a managed stream: fine\n"


def test_libcst_is_not_imported_for_files_without_markers(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"plain_{i}.py").write_text(PLAIN, encoding="utf-8")
    report, output, stderr = _drive(tmp_path, "none", "plain_0.py", "plain_1.py", "plain_2.py")
    assert report["plugin"] is True, (report, stderr)  # our plugin did run ...
    assert report["libcst"] is False, (report, stderr)  # ... without libcst
    assert report["analysis"] is False, (report, stderr)
    assert report["gc"] == 700, report  # CPython's default: flake8's process left as it was
    assert output == "", output


def test_libcst_is_imported_once_a_file_needs_it(tmp_path: Path) -> None:
    # The positive control of the test above: the driver can see the import happen.
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "bad.py").write_text(MISUSE, encoding="utf-8")
    report, output, stderr = _drive(tmp_path, "none", "--select=XST", "plain.py", "bad.py")
    assert report["libcst"] is True, (report, stderr)
    assert [line.split(" ", 2)[:2] for line in output.splitlines()] == [
        ["bad.py:3:1:", "XST101"]
    ], (output, stderr)
    # A run that analyses keeps the collector's thresholds raised between files: flake8's
    # checks of the next file must not walk the trees the run keeps
    # (extstream_lint.project.collector).
    assert report["gc"] >= 200_000, report


def test_analysis_exception_becomes_xst000_and_flake8_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a_bad.py").write_text(MISUSE, encoding="utf-8")
    (tmp_path / "b_plain.py").write_text("import os\nx = undefined_name\n", encoding="utf-8")
    report, output, stderr = _drive(
        tmp_path, "analysis-raises", "--select=XST,F821", "a_bad.py", "b_plain.py"
    )
    assert "Traceback" not in stderr, stderr
    lines = output.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["a_bad.py:1:1:", "XST000"],
        ["a_bad.py:2:32:", "F821"],  # pyflakes still ran on the same file
        ["b_plain.py:2:5:", "F821"],
    ], (output, stderr)
    assert "simulated analysis bug" in lines[0], lines[0]
    assert report["exit"] == 1


def test_missing_libcst_becomes_xst000_and_flake8_goes_on(tmp_path: Path) -> None:
    (tmp_path / "a_bad.py").write_text(MISUSE, encoding="utf-8")
    (tmp_path / "b_plain.py").write_text("import os\nx = undefined_name\n", encoding="utf-8")
    report, output, stderr = _drive(
        tmp_path, "no-libcst", "--select=XST,F821", "a_bad.py", "b_plain.py"
    )
    assert "Traceback" not in stderr, stderr
    codes = [line.split(" ", 2)[:2] for line in output.splitlines()]
    assert codes == [
        ["a_bad.py:1:1:", "XST000"],
        ["a_bad.py:2:32:", "F821"],
        ["b_plain.py:2:5:", "F821"],
    ], (output, stderr)
    assert "libcst" in output.splitlines()[0], output
    assert report["exit"] == 1


def test_checker_is_built_from_flake8_parameters_and_yields_0_based_columns() -> None:
    checker = ExtStreamChecker(
        tree=ast.parse(MISUSE), lines=MISUSE.splitlines(True), filename="x.py"
    )
    results = list(checker.run())
    assert [(line, col, text.split()[0], kind) for line, col, text, kind in results] == [
        (3, 0, "XST101", ExtStreamChecker)
    ]


def test_checker_never_reads_the_file(tmp_path: Path) -> None:
    # flake8 (stdin, editors) may hand over lines that differ from the file on disk.
    on_disk = tmp_path / "mod.py"
    on_disk.write_text("print('nothing to see')\n", encoding="utf-8")
    checker = ExtStreamChecker(ast.parse(MISUSE), MISUSE.splitlines(True), str(on_disk))
    assert [r[0] for r in checker.run()] == [3]
    missing = ExtStreamChecker(ast.parse(MISUSE), MISUSE.splitlines(True), "/no/such/file.py")
    assert [r[0] for r in missing.run()] == [3]


def test_checker_skips_marker_free_lines_even_with_a_bogus_tree() -> None:
    # The pre-filter decides before the tree is looked at.
    checker = ExtStreamChecker(tree=None, lines=PLAIN.splitlines(True))  # type: ignore[arg-type]
    assert list(checker.run()) == []


_EXIT_DRIVER = r"""
import atexit, sys

def after_ours():  # registered first, so it runs after the plugin's own exit callbacks
    from extstream_lint.analysis.driver import projects
    from extstream_lint.frontends.flake8_plugin import ExtStreamChecker

    held = len(projects._INDEXES) + (ExtStreamChecker._flake8_run is not None)
    sys.stderr.write(f"HELD AT EXIT {held}\n")

atexit.register(after_ours)
from flake8.main.cli import main
main(["--isolated", "-j1", "--select=XST", *sys.argv[1:]])
"""


def test_a_run_that_analysed_lets_go_of_its_summaries_before_the_teardown(
    tmp_path: Path,
) -> None:
    """CPython's teardown collects garbage over whatever is alive: the run's trees and
    summaries cost a third of a one-file flake8 run on the standard library there."""
    (tmp_path / "bad.py").write_text(MISUSE, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", _EXIT_DRIVER, "bad.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "XST101" in proc.stdout, (proc.stdout, proc.stderr)
    assert "HELD AT EXIT 0" in proc.stderr, proc.stderr


#: A module that makes an external stream, imported by none of the editor's file's closure.
_ADAPTER_ELSEWHERE = (
    "import torch_npu\n\n\ndef make(ptr):\n    return torch_npu.npu.ExternalStream(ptr)\n"
)


@pytest.mark.parametrize(
    ("adapter", "table"),
    [
        pytest.param("", "census-*.pickle", id="no-file-mentions-a-stream"),
        pytest.param(_ADAPTER_ELSEWHERE, "imports-*.pickle", id="one-file-elsewhere-does"),
    ],
)
def test_an_editors_next_run_reads_none_of_the_project(
    tmp_path: Path, adapter: str, table: str
) -> None:
    """flake8 has no end-of-run hook: what the run learnt about the project's files is
    stored at exit, so the next run on save opens none of them (flake8 reads its file).
    Where no file mentions an external stream the census answers; where one does, out of
    the file's import closure, the import graph does."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'e'\n", encoding="utf-8")
    for n in range(6):
        following = f"import m{n + 1}\n" if n < 5 else ""
        (tmp_path / f"m{n}.py").write_text(f"{following}x = {n}\n", encoding="utf-8")
    if adapter:
        (tmp_path / "adapter.py").write_text(adapter, encoding="utf-8")
    driver = (
        "import sys\nfrom extstream_lint.project import sources\nfrom flake8.main.cli import main\n"
        "try:\n    main(['--isolated', '-j1', '--select=XST', 'm0.py'])\nfinally:\n"
        "    sys.stderr.write(f'OPENED {sorted(sources.OPENS.items())}\\n')\n"
    )

    def opened() -> str:
        proc = subprocess.run(
            [sys.executable, "-c", driver], cwd=tmp_path, capture_output=True, text=True
        )
        return next(line for line in proc.stderr.splitlines() if line.startswith("OPENED"))

    # Cold: every Python file under the roots (the census, :mod:`.census`), none twice.
    cold = opened()
    assert cold.count(".py") == 7 if adapter else 6
    assert cold.count(".py', 1)") == cold.count(".py")
    assert list((tmp_path / ".extstream_cache").rglob(table))
    assert opened() == "OPENED []"


def test_a_file_that_needs_no_analysis_costs_no_heavy_import(tmp_path: Path) -> None:
    """Installing extstream must not slow every flake8 run: on a file the pre-filter
    clears (cache on, cold then warm), neither libcst, hashlib (OpenSSL) nor our rule
    table (4 ms of frozen dataclasses) is imported."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'e'\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("import helper\n\nhelper.x\n", encoding="utf-8")
    (tmp_path / "helper.py").write_text("x = 1\n", encoding="utf-8")
    driver = (
        "import sys\nfrom flake8.main.cli import main\n"
        "try:\n    main(['--isolated', '-j1', '--select=XST', 'a.py'])\nfinally:\n"
        "    heavy = [m for m in ('libcst', 'hashlib', 'extstream_lint.contract')\n"
        "             if m in sys.modules]\n"
        "    sys.stderr.write(f'HEAVY {heavy}\\n')\n"
    )
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-c", driver], cwd=tmp_path, capture_output=True, text=True
        )
        assert "HEAVY []" in proc.stderr, proc.stderr
    assert list((tmp_path / ".extstream_cache").rglob("census-*.pickle"))


def test_the_opt_in_codes_flake8_ignores_by_default_are_the_tables() -> None:
    from extstream_lint.contract import DEFAULT_IGNORE
    from extstream_lint.frontends import flake8_plugin

    assert flake8_plugin.OPT_IN == DEFAULT_IGNORE
