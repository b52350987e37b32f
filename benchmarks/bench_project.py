"""Whole-program analysis on a generated project: the hit path and the warm run.

Targets (issue 9, Speed):

* hit path: linting the files that import the adapter, with the summaries they need
  computed on the way (no cache), costs at most 2.5x ``libcst.parse_module`` on the files
  parsed (those files plus the adapter modules);
* warm run: linting the whole 1,000-file project in a new process with a warm
  ``.extstream_cache/`` costs at most 1.2x analysing the 100 importing files alone with
  every summary already in memory.

Both warm-run sides run the CLI's own ``run()`` (discovery, the pre-filter, reading, the
analysis, select/ignore and noqa; output aside), so the ratio measures what the target is
about, the 900 other files and the disk cache, not the 100 files' own work, which both
pay. The warm side starts from a fresh project index and a fresh pre-filter memo, as a new
process does, over a warm ``.extstream_cache/`` (summaries and the pre-filter's verdicts:
an unchanged file whose verdict is "no" is not even read); neither side pays interpreter
start-up (both run here; see benchmarks/README.md).

The project is generated in a temporary directory: ``pkg/adapter.py`` wraps the vendor
pointer (``make_ext``, a holder class, a helper), ``pkg/mods/`` holds 1,000 modules of
ordinary code, 100 of which import the adapter and misuse what it returns; each of the
other 900 imports another of the 900 (``from pkg.mods import m0001``), never an importer. Sides are
interleaved and the medians compared, in one run.

That ``chain`` shape has no import cycle and no hub, what real projects have (issue 15), so
the same measurements also run on two more shapes: ``cycles+hub``, where every module
imports 8 random siblings (dense import cycles) and nine in ten import ``pkg/hub.py``, the
importers still importing the adapter; and ``cycles+hub+adapter``, the same with the hub
re-exporting the adapter and the importers taking it from the hub (how a project adopts
it: every module that imports the hub may now be handed an external stream). Each shape
runs in a child process with a timeout, so a hang prints TIMEOUT and the next shape runs.
Exit status 1 if a target is missed or a shape times out::

    python benchmarks/bench_project.py                  # 1000 files, 100 importers, 5 repeats
    python benchmarks/bench_project.py --files 400 --importers 40 --repeats 3
    python benchmarks/bench_project.py --shapes chain --timeout 600
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ADAPTER = '''\
import torch
from torch_npu.npu import ExternalStream


def make_ext(ptr):
    """Wrap the vendor's aclrtStream once."""
    return ExternalStream(ptr)


class Holder:
    def __init__(self, stream):
        self.stream = stream

    def flush(self):
        self.stream.synchronize()


def sync(s):
    s.synchronize()
'''

PLAIN = """\
import math
import os
from pkg.mods import {other} as neighbour


class Worker{n}:
    def __init__(self, size):
        self.size = size
        self.items = [i * i for i in range(size)]

    def total(self):
        return sum(self.items) + neighbour.helper{other_n}(self.size)


def helper{n}(x):
    if x > 10:
        return math.sqrt(x) + len(os.sep)
    for i in range(x):
        x += i
    return x
"""

IMPORTER = """\
from pkg.adapter import Holder, make_ext, sync


def run{n}(ptr, items):
    ext = make_ext(ptr)
    total = 0
    for item in items:
        total += item
    ext.synchronize()
    sync(ext)
    Holder(ext).flush()
    return total


def helper{n}(x):
    return x + 1
"""


#: A module of the dense shapes: it imports ``fanout`` random siblings, and the hub unless it
#: is one of the modules in ten that do not.
DENSE_PLAIN = """\
import math
{hub_import}
from pkg.mods import {siblings}


class Worker{n}:
    def __init__(self, size):
        self.size = size
        self.items = [i * i for i in range(size)]

    def total(self):
        return sum(self.items) + {first}.helper{first_n}(self.size)


def helper{n}(x):
    if x > 10:
        return math.sqrt(x) + {shared}
    for i in range(x):
        x += i
    return x
"""

DENSE_IMPORTER = """\
from pkg.{source} import Holder, make_ext, sync
{hub_import}
from pkg.mods import {siblings}


def run{n}(ptr, items):
    ext = make_ext(ptr)
    total = 0
    for item in items:
        total += item
    ext.synchronize()
    sync(ext)
    Holder(ext).flush()
    return total


def helper{n}(x):
    return x + 1 + {shared} + {first}.helper{first_n}(x)
"""

HUB = """\
import os


def shared_helper(x):
    \"\"\"The utility that most of the project imports.\"\"\"
    return len(os.sep) + x
"""

HUB_REEXPORT = """

from pkg.adapter import Holder, make_ext, sync
"""

#: Shape name -> (dense imports and a hub, the hub re-exports the adapter).
SHAPES = {"chain": (False, False), "cycles+hub": (True, False), "cycles+hub+adapter": (True, True)}


def generate(
    root: Path, files: int, importers: int, shape: str = "chain", fanout: int = 8, seed: int = 15
) -> list[Path]:
    """Write the project; returns the importing files."""
    dense, reexport = SHAPES[shape]
    if dense:
        return _generate_dense(root, files, importers, reexport, fanout, seed)
    (root / "pyproject.toml").write_text("[project]\nname = 'generated'\n")
    mods = root / "pkg" / "mods"
    mods.mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (mods / "__init__.py").write_text("")
    (root / "pkg" / "adapter.py").write_text(ADAPTER)
    step = max(1, files // max(1, importers))
    importing = set(range(0, files, step)[:importers])
    plain = [n for n in range(files) if n not in importing]
    hits = []
    for n in range(files):
        path = mods / f"m{n:04d}.py"
        if n in importing:
            path.write_text(IMPORTER.format(n=n))
            hits.append(path)
        else:
            # The neighbour is another plain module: a module that imports one of the
            # importers may be handed an external stream through it, so the pre-filter
            # rightly opens it (``from pkg.mods import m0010``), and it would not be one
            # of the files that do not use the adapter.
            other = plain[(plain.index(n) + 1) % len(plain)]
            path.write_text(PLAIN.format(n=n, other=f"m{other:04d}", other_n=other))
    return hits


def _generate_dense(
    root: Path, files: int, importers: int, reexport: bool, fanout: int, seed: int
) -> list[Path]:
    """Every module imports ``fanout`` random siblings (cycles everywhere); nine modules in
    ten import the hub, which re-exports the adapter when ``reexport``."""
    (root / "pyproject.toml").write_text("[project]\nname = 'generated'\n")
    mods = root / "pkg" / "mods"
    mods.mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (mods / "__init__.py").write_text("")
    (root / "pkg" / "adapter.py").write_text(ADAPTER)
    (root / "pkg" / "hub.py").write_text(HUB + (HUB_REEXPORT if reexport else ""))
    chooser = random.Random(seed)
    step = max(1, files // max(1, importers))
    importing = set(range(0, files, step)[:importers])
    hits = []
    for n in range(files):
        others = [m for m in range(files) if m != n]
        siblings = sorted(chooser.sample(others, min(fanout, len(others))))
        names = {
            "n": n,
            "siblings": ", ".join(f"m{m:04d}" for m in siblings),
            "first": f"m{siblings[0]:04d}",
            "first_n": siblings[0],
        }
        # Importers of the re-exporting hub need it; other modules skip it one time in ten.
        uses_hub = n % 10 != 9 or (reexport and n in importing)
        hub = {
            "hub_import": "from pkg.hub import shared_helper" if uses_hub else "",
            "shared": "shared_helper(x)" if uses_hub else "0",
        }
        path = mods / f"m{n:04d}.py"
        if n in importing:
            source = "hub" if reexport else "adapter"
            path.write_text(DENSE_IMPORTER.format(source=source, **names, **hub))
            hits.append(path)
        else:
            path.write_text(DENSE_PLAIN.format(**names, **hub))
    return hits


def process_memos() -> list[dict]:
    """The process-wide memos, keyed by (configured roots, disk cache), that a new process
    starts without: the analysis' indexes and the pre-filter's facts (``modules._SHARED``
    before issue 15's project model, ``sources._SHARED`` since), whichever this build has."""
    import importlib

    memos = []
    for name in ("analysis.driver.projects", "analysis.projects", "modules", "sources"):
        try:
            module = importlib.import_module(f"extstream_lint.{name}")
        except ImportError:
            continue
        for attribute in ("_INDEXES", "_SHARED"):
            memo = getattr(module, attribute, None)
            if isinstance(memo, dict):
                memos.append(memo)
    return memos


def _timed(action) -> float:
    gc.collect()
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--importers", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shapes")
    parser.add_argument("--fanout", type=int, default=8, help="siblings each module imports")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per shape")
    parser.add_argument("--one-shape", help=argparse.SUPPRESS)  # a child: run it here
    args = parser.parse_args(argv)
    if args.one_shape:
        return run_shape(args, args.one_shape)
    shapes = args.shapes.split(",")
    unknown = set(shapes) - set(SHAPES)
    if unknown:
        parser.error(f"unknown shapes {sorted(unknown)}: choose among {', '.join(SHAPES)}")
    failed = []
    for shape in shapes:
        print(f"== shape {shape}", flush=True)
        command = [sys.executable, os.path.abspath(__file__), "--one-shape", shape]
        for flag in ("files", "importers", "repeats", "fanout", "seed"):
            command += [f"--{flag}", str(getattr(args, flag))]
        try:
            status = subprocess.run(command, timeout=args.timeout, check=False).returncode
        except subprocess.TimeoutExpired:
            print(f"{shape}: TIMEOUT after {args.timeout:g}s", flush=True)
            status = 1
        if status:
            failed.append(shape)
    print("all shapes:", "met" if not failed else f"NOT met ({', '.join(failed)})")
    return 1 if failed else 0


def run_shape(args: argparse.Namespace, shape: str) -> int:
    """One shape, every side in this process."""
    import libcst

    from extstream_lint.analysis import analyze_source
    from extstream_lint.analysis.driver.index import ProjectIndex

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        hits = generate(root, args.files, args.importers, shape, args.fanout, args.seed)
        every = sorted((root / "pkg").rglob("*.py"))
        texts = {p: p.read_text() for p in every}
        parsed = [*hits, root / "pkg" / "adapter.py"]
        if SHAPES[shape][1]:
            parsed.append(root / "pkg" / "hub.py")  # the importers reach the adapter through it

        def parse_only() -> None:
            for path in parsed:
                libcst.parse_module(texts[path])

        def hit_path() -> None:
            index = ProjectIndex()  # nothing known: summaries computed on the way
            for path in hits:
                analyze_source(texts[path], str(path), project=index)

        from extstream_lint.analysis.driver import projects
        from extstream_lint.frontends.cli import Options, Selection, run

        def cli(paths: list[Path], cache: bool) -> list:
            # The CLI's own run on these files, output aside: discovery, the pre-filter
            # (and its stored verdicts), reading, the analysis, select/ignore, noqa.
            selection = Selection(("XST",), (), (), str(root))
            options = Options(tuple(map(str, paths)), selection, (), str(root), jobs=1, cache=cache)
            return run(options)

        memory = projects.index_for((), False)  # the in-memory index, no disk cache
        cli(hits, False)  # warm the in-memory baseline once
        assert memory.analysed, "the baseline must hold the adapter's summary"
        in_memory = [(memo, memo[(), False]) for memo in process_memos() if ((), False) in memo]

        def alone_in_memory() -> None:
            # The CLI's per-file work on the 100 files alone; every summary, and the
            # pre-filter's memo, in memory.
            for memo, value in in_memory:
                memo[(), False] = value
            assert len(cli(hits, False)) == 3 * len(hits)

        cli(every, True)  # warm .extstream_cache/ (summaries and the pre-filter's verdicts)

        found = [0]

        def warm_run() -> None:
            # A new process: a fresh in-memory index and pre-filter memo over the warm
            # disk cache; the CLI decides which files to read.
            for memo in process_memos():
                memo.pop(((), True), None)
            found[0] = len(cli(every, True))

        sides = {"parse": parse_only, "hit": hit_path, "memory": alone_in_memory, "warm": warm_run}
        times: dict[str, list[float]] = {name: [] for name in sides}
        for repeat in range(args.repeats):
            order = list(sides) if repeat % 2 == 0 else list(reversed(sides))
            for name in order:
                times[name].append(_timed(sides[name]))
            print(
                f"repeat {repeat + 1}: " + "  ".join(f"{n} {times[n][-1]:.3f}s" for n in sides),
                flush=True,
            )
        median = {name: statistics.median(values) for name, values in times.items()}
        expected = 3 * len(hits)
        print(f"shape {shape}: files: {len(every)}, importing the adapter: {len(hits)}")
        print(f"findings in the warm run: {found[0]} (expected {expected})")
        hit_ratio = median["hit"] / median["parse"]
        warm_ratio = median["warm"] / median["memory"]
        print(
            f"hit path: analysis {median['hit']:.3f}s / libcst.parse_module on the "
            f"{len(parsed)} files parsed {median['parse']:.3f}s = {hit_ratio:.2f}x "
            "(target <= 2.5x)"
        )
        print(
            f"warm run: whole project {median['warm']:.3f}s / the {len(hits)} files alone, "
            f"summaries in memory {median['memory']:.3f}s = {warm_ratio:.2f}x (target <= 1.2x)"
        )
        met = hit_ratio <= 2.5 and warm_ratio <= 1.2 and found[0] == expected
        print(f"summary ({shape}):", "met" if met else "NOT met", flush=True)
        return 0 if met else 1


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.exit(main())
