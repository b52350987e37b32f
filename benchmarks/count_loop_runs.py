"""Statement executions on standard-library modules: this checkout against a baseline commit.

Counted, not timed (:class:`BudgetedInterpreter`'s count of statement executions, every pass
of every module analysed alone): loops run their body again only while it carries a stream
somewhere new (``analysis/interp/loops.py``), so on code without streams the count must stay
within 3% of the baseline's. The modules are copied out of the standard library into a plain
directory; the baseline's ``extstream_lint`` is taken with ``git archive``.

    python benchmarks/count_loop_runs.py                     # against main, 60 modules
    python benchmarks/count_loop_runs.py --base HEAD~2 --modules 100
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

_COUNT = """
import json, pathlib, sys
import libcst as cst
from extstream_lint.analysis.driver.budget import BudgetedInterpreter
counts = {}
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.py")):
    interpreter = BudgetedInterpreter(cst.parse_module(path.read_text(encoding="utf-8")))
    try:
        interpreter.run()
    except Exception as error:  # counted as far as it went
        print(path.name, type(error).__name__, file=sys.stderr)
    counts[path.name] = interpreter.executed
print(json.dumps(counts))
"""


def _counts(modules: Path, package_root: Path) -> dict[str, int]:
    """The counts with ``package_root``'s ``extstream_lint`` (run from ``modules``' parent:
    ``python -c`` puts its working directory first on the path)."""
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    done = subprocess.run(
        [sys.executable, "-c", _COUNT, str(modules)],
        env=env, cwd=modules.parent, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="main", help="the baseline commit (default: main)")
    parser.add_argument("--modules", type=int, default=60, help="standard-library modules")
    args = parser.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    with tempfile.TemporaryDirectory() as scratch:
        modules = Path(scratch, "modules")
        modules.mkdir()
        for path in sorted(stdlib.glob("*.py"))[1::2][: args.modules]:
            shutil.copy(path, modules / path.name)
        base = Path(scratch, "base")
        base.mkdir()
        archive = subprocess.run(
            ["git", "archive", args.base, "extstream_lint"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        here = Path(__file__).resolve().parent.parent
        before, after = _counts(modules, base), _counts(modules, here)
    old, new = sum(before.values()), sum(after.values())
    for name in sorted(after, key=lambda n: after[n] - before.get(n, 0), reverse=True)[:5]:
        print(f"  {name}: {before.get(name, 0):,} -> {after[name]:,}")
    ratio = new / old
    print(f"{len(after)} modules: {old:,} -> {new:,} statement executions ({ratio - 1:+.2%})")
    return 0 if ratio <= 1.03 else 1


if __name__ == "__main__":
    sys.exit(main())
