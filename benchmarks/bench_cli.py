"""How much faster is ``extstream-lint`` than ``flake8 --select=E,F,W`` on torch's sources?

The target (issue: standalone CLI) is at least 3x with the same number of processes: on
thousands of files that never use ``ExternalStream`` the pre-filter must leave the CLI
I/O-bound. Both tools run as subprocesses on the same directory and the same file types
(``*.py`` and ``*.pyi``), repeats interleaved so machine noise hits both alike; the
script prints each run and the ratio of the medians. Run it by hand (never as a timed
test)::

    python benchmarks/bench_cli.py            # -j = all cores, 3 repeats
    python benchmarks/bench_cli.py -j 2 --repeats 5 --path /some/tree
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence


def torch_sources() -> str:
    """The directory of the installed torch package (thousands of .py/.pyi files)."""
    import torch

    return os.path.dirname(torch.__file__)


def count_files(path: str) -> int:
    total = 0
    for _, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        total += sum(name.endswith((".py", ".pyi")) for name in files)
    return total


def timed(command: Sequence[str]) -> float:
    """Wall time of one run; any exit status but a crash is accepted (findings exit 1)."""
    start = time.perf_counter()
    completed = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if completed.returncode not in (0, 1):
        sys.exit(f"{command[:4]} failed ({completed.returncode}): {completed.stderr[-2000:]!r}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--path", default=None, help="tree to lint (default: torch's sources)")
    args = parser.parse_args(argv)
    path = args.path or torch_sources()
    jobs = str(args.jobs)
    ours = [sys.executable, "-m", "extstream_lint", "-j", jobs, path]
    theirs = [
        sys.executable,
        "-m",
        "flake8",
        "--select=E,F,W",
        "--filename=*.py,*.pyi",
        "-j",
        jobs,
        path,
    ]
    print(f"{path}: {count_files(path)} files, -j {jobs}, {args.repeats} interleaved repeats")
    print("  ours:  ", " ".join(ours[1:]))
    print("  flake8:", " ".join(theirs[1:]))
    timed(ours)  # warm the page cache for both
    ours_times, theirs_times = [], []
    for repeat in range(1, args.repeats + 1):
        ours_times.append(timed(ours))
        theirs_times.append(timed(theirs))
        print(
            f"  run {repeat}: extstream-lint {ours_times[-1]:.2f}s, flake8 {theirs_times[-1]:.2f}s"
        )
    ratio = statistics.median(theirs_times) / statistics.median(ours_times)
    print(
        f"median: extstream-lint {statistics.median(ours_times):.2f}s, "
        f"flake8 {statistics.median(theirs_times):.2f}s -> extstream-lint is {ratio:.1f}x faster "
        f"(target >= 3x)"
    )
    return 0 if ratio >= 3 else 1


if __name__ == "__main__":
    raise SystemExit(main())
