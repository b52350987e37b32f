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


#: Chains CPython keeps flat and libcst nests (issue 43): 8,000 terms overflow the stack of
#: libcst's native parser (exit 139, every other file's findings lost); 7,000 did not.
FLAT_CHAINS = {
    "and": lambda n: "y = " + " and ".join(["ext"] * n) + "\n",
    "or": lambda n: "y = " + " or ".join(["ext"] * n) + "\n",
    "mixed boolean": lambda n: "y = " + " or ".join(["ext and ext"] * (n // 2)) + "\n",
    "import": lambda n: "import " + ".".join(["a"] * n) + "\n",
    "import as": lambda n: "def f():\n    import " + ".".join(["a"] * n) + " as b\n",
    "from import": lambda n: "from " + ".".join(["a"] * n) + " import b\n",
}


@pytest.mark.parametrize("shape", sorted(FLAT_CHAINS))
def test_chains_cpython_keeps_flat_give_one_xst000_without_crashing(shape: str) -> None:
    source = HEAD + FLAT_CHAINS[shape](8_000) + TAIL
    result = _analyse_in_subprocess(source)
    assert result["cpython"] is True, "CPython accepts these: only libcst's parser is at risk"
    findings = result["findings"]
    assert [f[:3] for f in findings] == [[1, 0, "XST000"]], result  # type: ignore[index]
    assert "levels deep" in findings[0][3], findings  # type: ignore[index]


@pytest.mark.parametrize("shape", ["and", "import"])
def test_chains_within_the_bound_are_analysed(shape: str) -> None:
    source = HEAD + FLAT_CHAINS[shape](1_000) + TAIL
    result = _analyse_in_subprocess(source)
    assert [f[:3] for f in result["findings"]] == [[4, 0, "XST101"]], result  # type: ignore[index]


def test_string_annotation_of_a_long_chain_never_reaches_libcst() -> None:
    annotation = " and ".join(["ext"] * 8_000)
    source = HEAD + f'def f(s: "{annotation}"):\n    s.synchronize()\n' + TAIL
    result = _analyse_in_subprocess(source)
    assert [f[:3] for f in result["findings"]] == [[5, 0, "XST101"]], result  # type: ignore[index]


def test_a_deep_chain_costs_its_file_only_in_a_cli_run(tmp_path) -> None:
    """One file of 8,000 'and' terms and one imported 8,000-name chain: the run ends
    normally, with the other files' findings and one XST000."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'deep'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "deep.py").write_text(
        "import torch\nE = torch.npu.ExternalStream(3)\ndef drain(s):\n    s.synchronize()\n\n\n"
        "y = " + " and ".join(["s"] * 8_000) + "\n"
    )
    (package / "main.py").write_text(
        "import torch\nfrom pkg.deep import drain\n\n"
        "drain(torch.npu.ExternalStream(1))\ntorch.npu.ExternalStream(2).query()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--no-cache", "--format", "json", "pkg"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, f"the run died with {proc.returncode}:\n{proc.stderr}"
    found = sorted(
        (item["filename"].replace("\\", "/"), item["code"])
        for item in json.loads(proc.stdout)["findings"]
    )
    assert found == [("pkg/deep.py", "XST000"), ("pkg/main.py", "XST102")], proc.stdout
