"""Import effects that apply process-wide (issue 27, point 5; contract section 3).

``import torch_npu.contrib.transfer_to_npu`` copies torch_npu's names onto ``torch.cuda`` for
the whole process, so a module that imports a project module which imports it (in a package
``__init__``, or further down the import graph) gets torch_npu's ``torch.cuda.ExternalStream``
too. The module summary says so, and the pre-filter lets such an importer through although
it never spells ``npu``. A module reached by no such import keeps CUDA's class.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project.prefilter import should_analyse
from tests.lint.test_cases import expectations

_USE = "torch.cuda.ExternalStream(0x10).synchronize()"

FILES = {
    "pkg/__init__.py": "import torch_npu.contrib.transfer_to_npu  # noqa: F401\n\n\n"
    "def helper():\n    return 1\n",
    "pkg/models.py": "import torch\n\nfrom pkg import helper\n",
    "plain/__init__.py": "",
    "plain/tools.py": "import torch\n\n\ndef helper():\n    return torch.cuda.Stream()\n",
    # positives: the package itself, a name from it, a module importing it, two links down
    "app_import.py": f"import torch\n\nimport pkg\n\n{_USE}  # XST101\n",
    "app_from.py": f"import torch\n\nfrom pkg import helper\n\n{_USE}  # XST101\n",
    "app_chain.py": f"import torch\n\nfrom pkg.models import helper\n\n{_USE}  # XST101\n",
    "app_mid.py": "import torch\n\nimport chain_mid\n\n"
    f"{_USE}  # XST101\ntorch.cuda.Stream().synchronize()\n",
    "chain_mid.py": "import pkg.models  # noqa: F401\n",
    # negatives: no such import, or a managed stream under it
    "app_plain.py": f"import torch\n\nfrom plain.tools import helper\n\n{_USE}\n",
    "app_alone.py": f"import torch\n\n{_USE}\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "pyproject.toml").write_text("")
    return tmp_path


def _expected() -> set[tuple[str, int, str]]:
    return {
        (name, line, code) for name, text in FILES.items() for (line, code) in expectations(text)
    }


def test_file_by_file(project: Path) -> None:
    index = ProjectIndex()
    found = set()
    for name in FILES:
        path = project / name
        text = path.read_text()
        for finding in analyze_source(text, str(path), project=index):
            found.add((name, finding.line, finding.code))
    assert found == _expected()


def test_the_pre_filter_lets_the_importers_through_and_only_them(project: Path) -> None:
    passed = {
        name
        for name in FILES
        if name.startswith("app_")
        and should_analyse((project / name).read_text(), str(project / name))
    }
    assert passed >= {"app_import.py", "app_from.py", "app_chain.py", "app_mid.py"}
    assert "app_alone.py" not in passed


@pytest.mark.parametrize("tool", ["cli", "cli-warm", "flake8"])
def test_the_cli_and_flake8_agree(project: Path, tool: str) -> None:
    if tool == "flake8":
        command = [sys.executable, "-m", "flake8", "--isolated", "--select=XST", "."]
    else:
        command = [sys.executable, "-m", "extstream_lint", "--isolated", "."]
    for _ in range(2 if tool == "cli-warm" else 1):
        done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    found = set()
    for line in done.stdout.splitlines():
        path, number, _column, rest = line.split(":", 3)
        found.add((path.removeprefix("./"), int(number), rest.split()[0]))
    assert found == _expected()


# --- the packages Python runs first (language reference 5.2) ---------------------------

_OFF = "VALUE = 1\n"
_ON = "import torch_npu.contrib.transfer_to_npu  # noqa: F401\n"

PACKAGES = {
    "pkg/__init__.py": "from . import _setup  # noqa: F401\n",
    "pkg/_setup.py": _OFF,
    "pkg/helpers.py": "def scale(x):\n    return x * 2\n",
    # spells ``npu``: linted, and its findings kept, before any edit (the pre-filter alone
    # would otherwise send it to the analysis afresh after one)
    "pkg/user.py": f"import torch\n\n\ndef run():\n    {_USE}  # npu once remapped\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": f"import torch\n\n\ndef run():\n    {_USE}\n",
    "app_parent.py": f"import torch\n\nfrom pkg.helpers import scale  # noqa: F401\n\n{_USE}\n",
    "app_alone.py": f"import torch\n\n{_USE}\n",
}
#: Where the use is reported once ``pkg/_setup.py`` imports ``transfer_to_npu``.
REMAPPED = {("pkg/user.py", 5), ("pkg/sub/deep.py", 5), ("app_parent.py", 5)}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "pyproject.toml").write_text("")


def _lint(root: Path, *flags: str) -> set[tuple[str, int]]:
    command = [sys.executable, "-m", "extstream_lint", "--isolated", *flags, "."]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    found = set()
    for line in done.stdout.splitlines():
        path, number, _column, rest = line.split(":", 3)
        assert rest.split()[0] == "XST101", line
        found.add((path.removeprefix("./"), int(number)))
    return found


def _set_up(root: Path, text: str, tick: int) -> None:
    """Rewrite ``pkg/_setup.py``, two imports below the modules it affects, with its
    mtime moved on (a stamp within the same tick must not hide the edit)."""
    path = root / "pkg" / "_setup.py"
    path.write_text(text)
    stamp = path.stat().st_mtime_ns + tick * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_an_edit_below_a_package_moves_the_findings_of_its_modules(tmp_path: Path) -> None:
    """The package's own modules and a file importing one of them follow an edit of a
    module the package ``__init__`` imports, with the cache warm, both ways."""
    _write(tmp_path, PACKAGES)
    assert _lint(tmp_path) == set()
    assert _lint(tmp_path) == set()  # warm: kept findings and summaries
    _set_up(tmp_path, _ON, 1)
    assert _lint(tmp_path) == REMAPPED == _lint(tmp_path, "--no-cache")
    _set_up(tmp_path, _OFF, 2)
    assert _lint(tmp_path) == set() == _lint(tmp_path, "--no-cache")


def test_a_package_that_only_names_transfer_to_npu_remaps_nothing(tmp_path: Path) -> None:
    """The text graph sends the analysis to a package whose ``__init__`` spells the name
    in a comment; its summary, which imports nothing, decides: CUDA's class stays CUDA's."""
    files = dict(PACKAGES)
    files["pkg/__init__.py"] = "# transfer_to_npu is imported by the application, not here\n"
    _write(tmp_path, files)
    assert _lint(tmp_path, "--no-cache") == set()
