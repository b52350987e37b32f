"""Fuzz and differential (issue 43, done-when): every way of running the tool gives the same
findings on the same project, and none crashes.

Each example is a small project: modules drawn from a seeded generator of the constructs
the analysis follows across modules (makers and helpers imported from other modules, literal
flags and comparisons, loops carrying a stream round, unbound methods, stacked wrappers,
classes holding a stream), managed and CUDA streams among them, plus one module of
hypothesmith's (CPython's grammar) importing and calling them. The project is linted by:

* ``--no-cache``; a cold run with a fresh cache; the warm run after it; ``-j 2`` (warm);
* flake8, one file per run (as an editor runs it, :mod:`tests.conformance.flake8_each`);
* an edit of a helper module then its revert: the run after the revert, with the cache the
  edit left, must give the cold run's findings again.

All must agree, as (file, line, code); no run may exit with an internal error or give
an XST000 "internal error". ``EXTSTREAM_DIFFERENTIAL_EXAMPLES`` sets how many projects
(default 20); the test prints how many ran and how many findings they gave.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings(r"ignore:.*; perhaps you missed a comma\?:SyntaxWarning"),
]

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("EXTSTREAM_DIFFERENTIAL_EXAMPLES", "20"))
_TALLY = {"projects": 0, "findings": 0, "runs": 0}

_HEAD = "import torch\nfrom torch_npu.npu import ExternalStream\n"

#: Makers: what ``make(h)`` returns in a module of makers.
_MAKERS = (
    "def make(h):\n    return ExternalStream(h)\n",
    "def make(h):\n    return torch.npu.Stream()\n",
    "def make(h):\n    return torch.cuda.ExternalStream(h)\n",
    "def make(h, external=True):\n"
    "    return ExternalStream(h) if external else torch.npu.Stream()\n",
)

#: Helpers: functions of ``s`` (and a literal ``k``) that may refuse a call on it.
_HELPERS = (
    "def use(s, k=0):\n    s.synchronize()\n",
    "def use(s, k=0):\n    if k == 3:\n        s.query()\n",
    "def use(s, k=0):\n    if 0 < k <= 2 or k in (7, 8):\n        s.record_event()\n",
    "def use(s, k=0):\n    torch.npu.Stream.synchronize(s)\n",
    "def use(s, k=0):\n    a = b = c = torch.npu.Stream()\n    for _ in range(k):\n"
    "        a, b, c = b, c, s\n    a.synchronize()\n",
    "def use(s, k=0):\n    with torch.npu.stream(s):\n        t = torch.ones(2).to('npu')\n"
    "        return t.to('cpu', non_blocking=True)\n",
    "def wrap(fn):\n    def inner(*a, **kw):\n        return fn(*a, **kw)\n\n    return inner\n\n\n"
    "@wrap\n@wrap\ndef use(s, k=0):\n    s.wait_stream(torch.npu.Stream())\n",
    "class Holder:\n    def __init__(self, s):\n        self.s = s\n\n"
    "    def go(self):\n        self.s.synchronize()\n\n\n"
    "def use(s, k=0):\n    Holder(s).go()\n",
)


def project(seed: int, generated: str) -> dict[str, str]:
    """The files of one project, by path: a package of makers and helpers, a main module
    that calls them, and hypothesmith's program (which imports the package too)."""
    rng = random.Random(seed)
    files = {"pkg/__init__.py": ""}
    makers = rng.randint(1, 2)
    helpers = rng.randint(1, 3)
    for i in range(makers):
        files[f"pkg/make{i}.py"] = _HEAD + "\n\n" + rng.choice(_MAKERS)
    for i in range(helpers):
        files[f"pkg/use{i}.py"] = _HEAD + "\n\n" + rng.choice(_HELPERS)
    lines = [_HEAD]
    lines += [f"from pkg.make{i} import make as make{i}\n" for i in range(makers)]
    lines += [f"from pkg.use{i} import use as use{i}\n" for i in range(helpers)]
    lines.append("\n\ndef main(h):\n")
    for _ in range(rng.randint(1, 4)):
        maker, helper = rng.randrange(makers), rng.randrange(helpers)
        k = rng.choice((0, 1, 2, 3, 7, 9))
        lines.append(f"    use{helper}(make{maker}(h), {k})\n")
    lines.append("    return None\n")
    files["main.py"] = "".join(lines)
    files["gen.py"] = "from main import main\n" + generated + "\nmain(0)\n"
    return files


def _cli(root: Path, *extra: str) -> set[tuple[str, int, str]]:
    command = [sys.executable, "-m", "extstream_lint", "--isolated", "--output-format", "json"]
    proc = subprocess.run(
        [*command, *extra, "."],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    _TALLY["runs"] += 1
    assert proc.returncode in (0, 1), (extra, proc.returncode, proc.stderr[-2000:])
    found = json.loads(proc.stdout)["findings"]
    for f in found:
        assert "internal error" not in f["message"], f
    return {(_rel(f["filename"]), f["line"], f["code"]) for f in found}


def _rel(name: str) -> str:
    return Path(name).as_posix().removeprefix("./")


_FLAKE8_LINE = re.compile(r"^(.*?):(\d+):\d+: (XST\d{3}) ")


def _flake8_each(root: Path, paths: list[str]) -> set[tuple[str, int, str]]:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.conformance.flake8_each", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    _TALLY["runs"] += len(paths)
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
    found = set()
    for line in proc.stdout.splitlines():
        match = _FLAKE8_LINE.match(line)
        if match:
            found.add((_rel(match[1]), int(match[2]), match[3]))
    return found


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _compile_ok(code: str) -> bool:
    try:
        compile(code, "gen.py", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(seed=st.integers(0, 2**32 - 1), generated=hypothesmith.from_grammar())
def test_every_mode_gives_the_same_findings(seed: int, generated: str) -> None:
    files = project(seed, generated)
    if not _compile_ok(files["gen.py"]):
        files["gen.py"] = "from main import main\nmain(0)\n"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text("[project]\nname = 'p'\n")
        _write(root, files)
        cache = str(root / "cache")
        baseline = _cli(root, "--no-cache")
        modes = {
            "cold": _cli(root, "--cache-dir", cache),
            "warm": _cli(root, "--cache-dir", cache),
            "-j 2": _cli(root, "--cache-dir", cache, "-j", "2"),
            "flake8 file by file": _flake8_each(root, sorted(files)),
        }
        helper = next(rel for rel in sorted(files) if rel.startswith("pkg/use"))
        _write(root, {helper: files[helper] + "\n\ndef extra(s):\n    s.query()\n"})
        _cli(root, "--cache-dir", cache)  # the edit, kept in the cache
        _write(root, {helper: files[helper]})
        modes["edit and revert"] = _cli(root, "--cache-dir", cache)
    for mode, found in modes.items():
        assert found == baseline, (mode, sorted(found ^ baseline), files)
    _TALLY["projects"] += 1
    _TALLY["findings"] += len(baseline)


def test_report_the_tally() -> None:
    """Runs after the sweep in one process (``-p no:randomly``): what it covered."""
    print(f"differential: {_TALLY}")
