"""Module resolution as Python's import system orders it (issue 32), each rule checked
against ``importlib`` itself, run on the same tree with ``sys.path`` set to the roots.

With both ``pkg/hub.py`` and ``pkg/hub/__init__.py``, Python imports the package; the
analysis followed the module and reported a misuse that cannot happen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project import modules


def _tree(root: Path, files: list[str]) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")


def _python_finds(roots: list[Path], names: list[str]) -> dict[str, str | None]:
    """What CPython's import system finds for each name, with only ``roots`` on its path."""
    code = (
        "import importlib.util, json, sys\n"
        "roots, names = json.loads(sys.argv[1])\n"
        "sys.path[:] = roots\n"
        "out = {}\n"
        "for name in names:\n"
        "    try:\n"
        "        spec = importlib.util.find_spec(name)\n"
        "    except ImportError:\n"
        "        spec = None\n"
        "    out[name] = spec.origin if spec is not None and spec.has_location else None\n"
        "print(json.dumps(out))\n"
    )
    argument = json.dumps([[str(r) for r in roots], names])
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, argument], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


CASES = {
    "package-before-module": (["a/pkg/__init__.py", "a/pkg/hub.py", "a/pkg/hub/__init__.py"],
                              ["a"], ["pkg.hub"], "a/pkg/hub/__init__.py"),
    "package-before-module-at-the-top": (["a/hub.py", "a/hub/__init__.py"], ["a"], ["hub"],
                                         "a/hub/__init__.py"),
    "module-before-namespace-portion": (["a/ns.py", "a/ns/x.py"], ["a"], ["ns"], "a/ns.py"),
    "namespace-portions-last": (["a/m/x.py", "b/m.py"], ["a", "b"], ["m"], "b/m.py"),
    "roots-in-order": (["a/m.py", "b/m.py"], ["a", "b"], ["m"], "a/m.py"),
    "roots-in-order-packages": (["a/m/__init__.py", "b/m.py"], ["a", "b"], ["m"],
                                "a/m/__init__.py"),
    "submodule-only-in-its-package": (["a/pkg/__init__.py", "b/pkg/sub.py"], ["a", "b"],
                                      ["pkg.sub"], None),
    "namespace-across-roots": (["a/ns/x.py", "b/ns/y.py"], ["a", "b"], ["ns.y"], "b/ns/y.py"),
    "no-submodule-of-a-module": (["a/m.py", "a/m/x.py"], ["a"], ["m.x"], None),
    "package-submodule-before-sibling-module": (
        ["a/pkg/__init__.py", "a/pkg/sub/__init__.py", "a/pkg/sub.py", "a/pkg/sub/deep.py"],
        ["a"], ["pkg.sub.deep"], "a/pkg/sub/deep.py"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_resolution_follows_the_import_system(tmp_path: Path, case: str) -> None:
    files, roots, names, expected = CASES[case]
    _tree(tmp_path, files)
    root_paths = [tmp_path / r for r in roots]
    python = _python_finds(root_paths, names)
    with modules.one_run():
        ours = {n: modules.find_module(n, tuple(str(r) for r in root_paths)) for n in names}
    want = str(tmp_path / expected) if expected else None
    assert python[names[-1]] == want, "the case itself is wrong"
    assert ours[names[-1]] == want


def test_a_namespace_package_is_one_only_without_a_regular_one(tmp_path: Path) -> None:
    _tree(tmp_path, ["a/ns/x.py", "b/ns/y.py", "a/m/x.py", "b/m.py"])
    roots = (str(tmp_path / "a"), str(tmp_path / "b"))
    with modules.one_run():
        assert modules.namespace_package("ns", roots)
        assert not modules.namespace_package("m", roots)  # b/m.py wins over the portion
        assert modules.find_module("m", roots) == str(tmp_path / "b" / "m.py")


_ADAPTER = (
    "from torch_npu.npu import ExternalStream\n\n\ndef get(p):\n    return ExternalStream(p)\n"
)
_ORDINARY = "import torch\n\n\ndef get(p):\n    return torch.npu.Stream()\n"
_USER = "from pkg.hub import get\n\n\ndef run(p):\n    get(p).synchronize()\n"


@pytest.mark.parametrize(
    ("module", "package", "reported"),
    [(_ADAPTER, _ORDINARY, False), (_ORDINARY, _ADAPTER, True)],
    ids=["module-shadowed", "package-imported"],
)
def test_the_shadowed_module_is_not_followed(
    tmp_path: Path, module: str, package: str, reported: bool
) -> None:
    files = {
        "pyproject.toml": "[project]\nname = 's'\n",
        "pkg/__init__.py": "",
        "pkg/hub.py": module,
        "pkg/hub/__init__.py": package,
        "pkg/user.py": _USER,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    user = tmp_path / "pkg" / "user.py"
    found = analyze_source(_USER, str(user), project=ProjectIndex())
    assert [f.code for f in found] == (["XST101"] if reported else [])


def test_a_package_appearing_beside_a_module_changes_the_answer(tmp_path: Path) -> None:
    """The probes record the package's ``__init__.py`` looked for first: when it appears,
    what was resolved to the module is resolved again."""
    _tree(tmp_path, ["a/hub.py"])
    roots = (str(tmp_path / "a"),)
    with modules.one_run():
        found, probes = modules.locate_module("hub", roots)
    assert found == str(tmp_path / "a" / "hub.py")
    init = str(tmp_path / "a" / "hub" / "__init__.py")
    assert (init, None) in probes
    _tree(tmp_path, ["a/hub/__init__.py"])
    assert os.path.exists(init)
    with modules.one_run():
        assert modules.find_module("hub", roots) == init
