"""Import cost and the behaviour without torch_npu, each in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )  # fmt: skip


HEAVY = "('torch', 'torch_npu', 'libcst', 'flake8')"


@pytest.mark.parametrize(
    "statement",
    [
        "import extstream_guard",
        "import extstream_guard.pytest_plugin",
        "from extstream_guard import install, installed, is_external, ExternalStreamError",
        "import os; os.environ['EXTSTREAM_GUARD'] = 'off'; import extstream_guard.auto",
    ],
)
def test_import_is_cheap(statement: str) -> None:
    result = _python(
        f"""
        import sys
        {statement}
        heavy = [m for m in {HEAVY} if m in sys.modules]
        assert not heavy, heavy
        """
    )
    assert result.returncode == 0, result.stderr


def test_install_without_torch_npu_says_what_to_install() -> None:
    result = _python(
        """
        import extstream_guard
        try:
            extstream_guard.install()
        except ImportError as exc:
            print(exc)
        else:
            raise SystemExit("install() worked without torch_npu")
        assert extstream_guard.get_mode() == "off"
        """
    )
    assert result.returncode == 0, result.stderr
    assert "extstream_guard needs torch_npu; install torch-npu" in result.stdout
    assert "pip install torch-npu" in result.stdout


def test_guarded_class_without_torch_npu_raises_import_error() -> None:
    result = _python(
        """
        import extstream_guard
        try:
            extstream_guard.ExternalStream
        except ImportError as exc:
            print("ImportError:", exc)
        """
    )
    assert "ImportError: extstream_guard needs torch_npu" in result.stdout, result.stderr


def _package_imports() -> dict[str, set[str]]:
    """Module -> the modules of extstream_guard it imports (anywhere in its body)."""
    import ast

    graph: dict[str, set[str]] = {}
    for path in (ROOT / "extstream_guard").glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    found.update(alias.name for alias in node.names)
        graph[path.stem] = found - {path.stem}
    return graph


def test_the_guards_modules_import_each_other_without_a_cycle() -> None:
    graph = _package_imports()
    assert "install" not in graph["wrappers"]  # the 0.1.0 cycle (a lazy import inside)
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in graph.get(module, ()):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())


def test_the_package_shows_its_public_names_only() -> None:
    """``dir(extstream_guard)`` (what completion offers) is ``__all__``: it listed the
    ``typing.Any`` and ``__future__.annotations`` its own code imports."""
    import extstream_guard

    assert dir(extstream_guard) == sorted(extstream_guard.__all__)
    assert "ExternalStream" in dir(extstream_guard)
