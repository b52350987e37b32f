"""Import effects cost nothing where nothing can remap ``torch.cuda`` (issue 42).

``import pkg.adapter as ad`` runs ``pkg/__init__.py`` first, and that package's import
effects are the importer's: but only ``import torch_npu.contrib.transfer_to_npu`` has one,
and the text graph knows where it may be imported (:meth:`ImportGraph.may_transfer`). On
vllm-ascend, which never spells it, asking anyway cost 341 module summaries (27 s of 36 s):
a package ``__init__`` follows its whole package. Here a package of n modules whose
``__init__`` imports them all, and an adapter beside them: linting the files the
pre-filter lets through summarises the adapter alone, for 20 modules as for 200.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project.modules import one_run
from extstream_lint.project.prefilter import should_analyse

_ADAPTER = "import torch_npu\n\n\ndef make_ext(p):\n    return torch_npu.npu.ExternalStream(p)\n"
_APP = "import torch\nimport pkg.adapter as ad\n\nad.make_ext(1).synchronize()\n"


def _project(root: Path, n: int, setup: str = "") -> None:
    """``pkg`` of ``n`` modules importing each other by ``import pkg.mJ as bJ``, its
    ``__init__`` importing them all (and ``setup``), an adapter, and an app using it."""
    (root / "pyproject.toml").write_text("")
    pkg = root / "pkg"
    pkg.mkdir()
    init = "".join(f"from . import m{i}  # noqa: F401\n" for i in range(n))
    (pkg / "__init__.py").write_text(setup + init)
    (pkg / "adapter.py").write_text(_ADAPTER)
    for i in range(n):
        lines = ["import torch"]
        lines += [f"import pkg.m{j} as b{j}" for j in {i - 1, (i * 7) % n} if 0 <= j != i]
        lines += ["", "", f"def f{i}(x):", "    return torch.cuda.synchronize()", ""]
        (pkg / f"m{i}.py").write_text("\n".join(lines) + "\n")
    (root / "app.py").write_text(_APP)


def _lint(root: Path) -> tuple[list[tuple[str, int, str]], int]:
    """The findings of the files the pre-filter lets through, as the CLI lints them, and
    how many module summaries the run computed."""
    index = ProjectIndex()
    found = []
    with one_run():
        for path in sorted(root.rglob("*.py")):
            text = path.read_text()
            if should_analyse(text, str(path)):
                for f in analyze_source(text, str(path), project=index):
                    found.append((path.relative_to(root).as_posix(), f.line, f.code))
    return found, len(index.analysed)


@pytest.mark.parametrize("n", [20, 200])
def test_no_summary_is_asked_for_effects_nothing_can_have(tmp_path: Path, n: int) -> None:
    _project(tmp_path, n)
    found, summaries = _lint(tmp_path)
    assert found == [("app.py", 4, "XST101")]
    assert summaries <= 2  # the adapter (and nothing of the package it sits in)


def test_a_package_that_may_remap_is_still_asked(tmp_path: Path) -> None:
    """The twin: once ``pkg/__init__.py`` imports ``transfer_to_npu``, the importer's
    ``torch.cuda`` is torch_npu's and a CUDA-spelt external stream is reported."""
    _project(tmp_path, 5, "import torch_npu.contrib.transfer_to_npu  # noqa: F401\n")
    (tmp_path / "app.py").write_text(_APP + "torch.cuda.ExternalStream(0x10).synchronize()\n")
    found, _summaries = _lint(tmp_path)
    assert ("app.py", 5, "XST101") in found
