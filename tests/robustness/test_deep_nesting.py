"""Nesting at and beyond CPython's own limits, straight into ``analyze_source``.

libcst's native parser can crash the whole process (a segfault, not an exception) on
expressions nested deeper than CPython accepts, and takes super-linear time near the limit.
Each case therefore runs in its own interpreter: a crash shows up as a signal exit code
instead of taking pytest down. Within CPython's limits the misuse after the deep expression
must still be found; beyond them, one XST000 saying why is the only acceptable answer.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAD = "import torch\next = torch.npu.ExternalStream(handle)\n"
TAIL = "ext.synchronize()\n"

#: Expression builders: depth -> one line of Python that nests ``depth`` levels around ``ext``.
SHAPES = {
    "sum": lambda n: " + ".join(["ext"] * n),
    "unary minus": lambda n: "-" * n + "ext",
    "not": lambda n: "not " * n + "ext",
    "power": lambda n: " ** ".join(["ext"] * n),
    "attributes": lambda n: "ext" + ".a" * n,
    "chained calls": lambda n: "ext" + "()" * n,
    "subscripts": lambda n: "ext" + "[0]" * n,
    "conditional expressions": lambda n: "a if b else " * n + "ext",
    "lambdas": lambda n: "lambda: " * n + "ext",
}

#: Depths CPython 3.11 still parses (its limit is just under 3,000 for these shapes); libcst
#: is slow near the limit for the last few (about 25 s for 2,000 subscripts), so they stay lower.
ACCEPTED_DEPTH = {
    "sum": 2900,
    "unary minus": 2900,
    "not": 2900,
    "power": 2900,
    "attributes": 2900,
    "chained calls": 2000,
    "subscripts": 1200,
    "conditional expressions": 2000,
    "lambdas": 2000,
}

_DRIVER = r"""
import ast, json, sys
from extstream_lint.analysis import analyze_source
source = sys.stdin.read()
try:
    tree = ast.parse(source)
except (SyntaxError, RecursionError, MemoryError):
    tree = None
findings = analyze_source(source, "deep.py", tree=tree)
print(json.dumps({
    "cpython": tree is not None,
    "findings": [[f.line, f.col, f.code, f.message] for f in findings],
}))
"""


def _analyse_in_subprocess(source: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER],
        input=source,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, f"analysis process died with {proc.returncode}:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_deepest_nesting_cpython_accepts_is_analysed(shape: str) -> None:
    source = HEAD + "y = " + SHAPES[shape](ACCEPTED_DEPTH[shape]) + "\n" + TAIL
    result = _analyse_in_subprocess(source)
    assert result["cpython"] is True, "the depth must stay within what CPython parses"
    assert [f[:3] for f in result["findings"]] == [[4, 0, "XST101"]], result  # type: ignore[index]


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["sum", "unary minus", "attributes", "chained calls"])
def test_nesting_beyond_cpython_gives_one_xst000_without_crashing(shape: str) -> None:
    # 10,000 levels: CPython raises RecursionError; libcst 1.9 segfaults on some of these.
    source = HEAD + "y = " + SHAPES[shape](10_000) + "\n" + TAIL
    result = _analyse_in_subprocess(source)
    assert result["cpython"] is False
    findings = result["findings"]
    assert [f[:3] for f in findings] == [[1, 0, "XST000"]], result  # type: ignore[index]
    assert "nested" in findings[0][3], findings  # type: ignore[index]


_PROJECT_DRIVER = r"""
import json, sys
from extstream_lint.analysis import analyze_source
findings = analyze_source(open(sys.argv[1]).read(), sys.argv[1])
print(json.dumps([[f.line, f.code, f.message] for f in findings]))
"""


@pytest.mark.parametrize("imported", [False, True])
def test_a_project_module_nested_beyond_cpython_never_crashes_its_importer(
    tmp_path, imported: bool
) -> None:
    """libcst segfaults where CPython gives up: CPython's parser guards every libcst parse,
    of an imported project module as of the linted file (not slow: CPython says no fast)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'deep'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "deep.py").write_text(
        "def drain(s):\n    s.synchronize()\n\n\ny = " + "-" * 10_000 + "1\n"
    )
    (package / "main.py").write_text(
        "import torch\nfrom pkg.deep import drain\n\n"
        "drain(torch.npu.ExternalStream(1))\ntorch.npu.ExternalStream(2).query()\n"
    )
    linted = package / ("main.py" if imported else "deep.py")
    proc = subprocess.run(
        [sys.executable, "-c", _PROJECT_DRIVER, str(linted)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"analysis process died with {proc.returncode}:\n{proc.stderr}"
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    if imported:  # the deep module is not followed; the rest of the file is analysed
        assert [code for _, code, _ in found] == ["XST102"], found
    else:
        assert [(line, code) for line, code, _ in found] == [(1, "XST000")], found
        assert "nested too deeply" in found[0][2]
