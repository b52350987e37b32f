"""What does installing the extstream flake8 plugin cost on code that never uses it?

Targets (issue: the flake8 adapter): on torch's own sources, flake8 with our plugin
installed takes at most 3% longer than without it, and flake8's start-up grows by at most
30 ms. This is the trap TorchFix fell into: a plugin whose codes are deselected still runs
on every file, and flake8 merely drops its results afterwards.

"Without the plugin" must be the same flake8 in the same environment, so both sides run
one tiny driver that starts flake8's real ``main()``; on the baseline side the driver hides
the ``extstream`` distribution from flake8's plugin discovery (the only difference). Runs are
interleaved (A B, B A, ...) so machine noise hits both alike; the script prints every run,
then the medians and their ratio, both for wall time and for the CPU time of the flake8
process (the steadier figure on a busy machine); the targets are judged on wall time. Exit
status 1 if a target is missed. Run it by hand, never as a timed test::

    python benchmarks/bench_flake8.py                    # 300 torch files, -j1, 5 repeats
    python benchmarks/bench_flake8.py --files 100 --repeats 3 --startup-repeats 10
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

#: Starts flake8's own ``main``. argv[1] is the side: ``without`` hides our distribution from
#: flake8's entry-point discovery (the only difference between the sides); ``with-timed`` also
#: adds up the time spent inside our checker (lazy imports included) and prints it on exit.
DRIVER = r"""
import sys
side = sys.argv[1]
from flake8.plugins import finder
discover = finder._find_importlib_plugins
if side == "without":
    finder._find_importlib_plugins = lambda: (p for p in discover() if p.package != "extstream")
if side == "with-timed":
    import atexit, time
    from extstream_lint.frontends.flake8_plugin import ExtStreamChecker
    run, spent = ExtStreamChecker.run, [0.0]
    def timed_run(self):
        start = time.perf_counter()
        results = list(run(self))
        spent[0] += time.perf_counter() - start
        return iter(results)
    ExtStreamChecker.run = timed_run
    atexit.register(lambda: sys.stderr.write(f"XST_SELF_SECONDS={spent[0]!r}\n"))
from flake8.main.cli import main
main(sys.argv[2:])
"""

#: Our distribution's name (pyproject ``[project] name``), as flake8 reports plugin packages.
DISTRIBUTION = "extstream"

WITH = "with plugin"
WITHOUT = "without plugin"


@dataclass(frozen=True)
class Timing:
    wall: float
    cpu: float
    output: str
    #: Seconds spent inside our checker (``with-timed`` side only, and only with ``-j1``).
    plugin: float = 0.0


def flake8(side: str, args: Sequence[str]) -> Timing:
    """Run flake8 once through the driver; return wall and child CPU seconds and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, side, "--isolated", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"flake8 {args[:3]} failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    marker = "XST_SELF_SECONDS="
    plugin = [float(x[len(marker) :]) for x in done.stderr.splitlines() if x.startswith(marker)]
    return Timing(wall, cpu, done.stdout, plugin[0] if plugin else 0.0)


def interleaved(
    args: Sequence[str], repeats: int, label: str, timed: bool = False
) -> dict[str, list[Timing]]:
    """``repeats`` runs of each side, alternating which side goes first."""
    sides = {WITH: "with-timed" if timed else "with", WITHOUT: "without"}
    runs: dict[str, list[Timing]] = {WITH: [], WITHOUT: []}
    for repeat in range(repeats):
        order = [WITH, WITHOUT] if repeat % 2 == 0 else [WITHOUT, WITH]
        for side in order:
            runs[side].append(flake8(sides[side], args))
        if label:
            print(
                f"  {label} run {repeat + 1}: "
                + ", ".join(
                    f"{side} {runs[side][-1].wall:.2f}s wall / {runs[side][-1].cpu:.2f}s cpu"
                    for side in (WITH, WITHOUT)
                )
            )
    return runs


def medians(runs: dict[str, list[Timing]], attr: str) -> tuple[float, float]:
    return (
        statistics.median(getattr(t, attr) for t in runs[WITH]),
        statistics.median(getattr(t, attr) for t in runs[WITHOUT]),
    )


def torch_sample(count: int) -> tuple[str, list[str]]:
    """``count`` ``.py`` files spread evenly over torch's sorted sources (deterministic)."""
    import torch

    root = os.path.dirname(torch.__file__)
    files = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
    files.sort()
    step = max(1, len(files) // count)
    return root, files[::step][:count]


def check_driver() -> None:
    """The baseline really lacks our plugin, and the other side really has it."""
    shown = flake8("with", ["--version"]).output
    hidden = flake8("without", ["--version"]).output
    if f"{DISTRIBUTION}:" not in shown or f"{DISTRIBUTION}:" in hidden:
        sys.exit(f"driver check failed:\n  with: {shown!r}\n  without: {hidden!r}")
    print(f"driver check: with    -> {shown.splitlines()[0]}")
    print(f"              without -> {hidden.splitlines()[0].split(')')[0]})")


def bench_files(count: int, repeats: int, jobs: int) -> float:
    from extstream_lint.project.prefilter import might_use_external_streams

    root, files = torch_sample(count)
    size = sum(os.path.getsize(f) for f in files)
    marked = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as handle:
            if might_use_external_streams(handle.read()):
                marked.append(os.path.relpath(path, root))
    args = ["--select=E,F,W,XST", f"-j{jobs}", *files]
    print(
        f"\n(a) flake8 --select=E,F,W,XST -j{jobs} on {len(files)} files of {root} "
        f"({size / 1e6:.1f} MB; {len(marked)} pass our pre-filter: {', '.join(marked) or '-'})"
    )
    flake8("with", args)  # warm the page cache and .pyc files for both sides
    runs = interleaved(args, repeats, "files", timed=jobs == 1)
    extra = sorted(
        set(runs[WITH][0].output.splitlines()) - set(runs[WITHOUT][0].output.splitlines())
    )
    print(f"  lines only the plugin side printed: {len(extra)} (our XST findings)")
    for line in extra[:5]:
        print(f"    {line[:150]}")
    result = 0.0
    for attr in ("wall", "cpu"):
        with_, without = medians(runs, attr)
        overhead = (with_ / without - 1) * 100
        print(
            f"  median {attr}: with {with_:.2f}s, without {without:.2f}s -> "
            f"ratio {with_ / without:.3f}, overhead {overhead:+.1f}% (target <= +3%)"
        )
        if attr == "wall":
            result = overhead
    paired = statistics.median(w.wall / o.wall for w, o in zip(runs[WITH], runs[WITHOUT]))
    print(f"  median of the paired wall ratios (run i with / run i without): {paired:.3f}")
    if jobs == 1:
        inside = statistics.median(t.plugin for t in runs[WITH])
        without = statistics.median(t.wall for t in runs[WITHOUT])
        print(
            f"  time inside our checker (libcst import included): median {inside:.2f}s "
            f"= {inside / without * 100:.1f}% of the baseline's median wall time"
        )
    return result


#: flake8's own modules first, so only what our plugin adds on top of them is counted.
IMPORT_PROBE = (
    "import flake8.main.application, flake8.checker, pycodestyle, pyflakes.checker, mccabe; "
    "import extstream_lint.frontends.flake8_plugin"
)


def plugin_import_ms(repeats: int) -> float:
    """Median cumulative import time of our plugin module after flake8's (``-X importtime``)."""
    values = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", IMPORT_PROBE],
            capture_output=True,
            text=True,
            check=True,
        )
        for line in done.stderr.splitlines():
            if line.rstrip().endswith("| extstream_lint.frontends.flake8_plugin"):
                values.append(int(line.split("|")[1]) / 1000)
    return statistics.median(values)


def bench_startup(repeats: int) -> float:
    """Start-up cost in ms (median wall difference), worst of ``--version`` and an empty file."""
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.py")
        open(empty, "w").close()
        for label, args in (("--version", ["--version"]), ("empty file", ["-j1", empty])):
            interleaved(args, 2, "")  # warm-up
            runs = interleaved(args, repeats, "")
            print(f"\n(b) start-up, flake8 {label}, {repeats} interleaved repeats")
            for attr in ("wall", "cpu"):
                with_, without = medians(runs, attr)
                print(
                    f"  median {attr}: with {with_ * 1e3:.0f} ms, without {without * 1e3:.0f} ms"
                    f" -> {(with_ - without) * 1e3:+.1f} ms (target <= +30 ms)"
                )
                if attr == "wall":
                    worst = max(worst, (with_ - without) * 1e3)
    imported = plugin_import_ms(repeats)
    print(
        f"\n(b) importing our plugin module after flake8's own (python -X importtime, "
        f"cumulative): median {imported:.1f} ms (the direct, low-noise view of the same cost)"
    )
    return worst


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300, help="torch files to lint (300)")
    parser.add_argument("--repeats", type=int, default=5, help="runs per side for (a) (5)")
    parser.add_argument("--startup-repeats", type=int, default=31, help="runs per side, (b)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="flake8 jobs (1)")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, baseline = same flake8 with '{DISTRIBUTION}' hidden")
    check_driver()
    overhead = bench_files(args.files, args.repeats, args.jobs)
    startup = bench_startup(args.startup_repeats)
    met = overhead <= 3.0 and startup <= 30.0
    print(
        f"\nsummary: flake8 time {overhead:+.1f}% (target <= +3%), "
        f"start-up {startup:+.1f} ms (target <= +30 ms) -> {'met' if met else 'NOT met'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
