"""Shared by the flake8 tests: snippets and a real flake8 run in a subprocess.

Every test goes through ``python -m flake8 --isolated`` in a temporary directory, so the
results depend on nothing but the arguments and the files the test writes: no user or
project configuration, and the installed entry point ``XST`` is the one under test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: flake8's default output format: ``path:row:col: CODE text`` (``col`` is 1-based there).
_VIOLATION = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?P<text>.*)$"
)

#: The contract's running example: a synchronize() on an external stream (XST101, line 3).
MISUSE = "import torch\next = torch.npu.ExternalStream(handle)\next.synchronize()\n"

#: The same wrapping without an unsupported operation: must stay silent.
CLEAN_USE = (
    "import torch\n"
    "ext = torch.npu.ExternalStream(handle)\n"
    "with torch.npu.stream(ext):\n"
    "    y = model(x)\n"
)

#: Valid Python (CPython accepts it) that libcst 1.9's parser rejects.
LIBCST_REJECTS = "(x): int = 0\n"


@dataclass(frozen=True)
class Violation:
    """One line of flake8's output, as printed (``col`` is flake8's 1-based column)."""

    path: str
    line: int
    col: int
    code: str
    text: str


@dataclass(frozen=True)
class Flake8Run:
    """What a flake8 subprocess did: exit code, raw streams and parsed violations."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def violations(self) -> list[Violation]:
        found = []
        for raw in self.stdout.splitlines():
            match = _VIOLATION.match(raw)
            if match:
                found.append(
                    Violation(
                        path=match["path"],
                        line=int(match["line"]),
                        col=int(match["col"]),
                        code=match["code"],
                        text=match["text"],
                    )
                )
        return found

    def at(self, path: str, prefix: str = "XST") -> list[tuple[int, int, str]]:
        """``(line, col, code)`` of the violations on ``path`` whose code starts with ``prefix``."""
        return [
            (v.line, v.col, v.code)
            for v in self.violations
            if Path(v.path).name == Path(path).name and v.code.startswith(prefix)
        ]

    def assert_flake8_went_on(self) -> None:
        """flake8 finished normally: exit 0/1, no traceback and no plugin failure banner."""
        assert self.returncode in (0, 1), self.describe()
        assert "Traceback" not in self.stderr, self.describe()
        assert "critical error" not in self.stderr.lower(), self.describe()
        assert "PluginExecutionFailed" not in self.stderr + self.stdout, self.describe()

    def describe(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def run_flake8(
    args: Sequence[str], cwd: Path, stdin: str | bytes | None = None, timeout: float = 300
) -> Flake8Run:
    """Run ``python -m flake8 --isolated *args`` in ``cwd`` and capture everything."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLAKE8")}
    env["PYTHONIOENCODING"] = "utf-8"
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *args],
        cwd=cwd,
        input=data if data is not None else b"",
        capture_output=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    return Flake8Run(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
