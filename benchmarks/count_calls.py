"""Deterministic cost of one cold CLI run: Python function calls (cProfile), and its findings.

Counted, not timed, so two checkouts compare on a busy machine: the calls of
``extstream-lint --isolated --no-cache -j 1`` on ``TREE`` (one process, every module
analysed), the functions with the most own calls, and the findings as JSON in ``OUT`` (the
byte-for-byte check that a cheaper engine still finds the same). Run it with the checkout's
own interpreter from the repository root; ``--sort cumulative`` lists by time below each
function instead.

``--flake8`` counts bench_real's "flake8 -j1" row instead: flake8's ``main`` in this
process with the plugin, ``--select=E,F,W,XST -j 1`` on the tree, the cache cold in a
temporary ``$EXTSTREAM_CACHE_DIR`` (the tree is left untouched), and ``OUT`` gets flake8's
output. Its calls include flake8's own (about 17M on the prefixed stdlib set).

    python benchmarks/count_calls.py ~/.cache/extstream-bench/trees/stdlib/overlay /tmp/a.json
    python benchmarks/count_calls.py TREE OUT --top 40 --sort cumulative
    python benchmarks/count_calls.py TREE /tmp/f.txt --flake8
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import tempfile

from extstream_lint.frontends import cli


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tree", help="the directory to lint (bench_real.py's trees)")
    parser.add_argument("out", nargs="?", help="where to write the findings (JSON)")
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument("--sort", default="ncalls", help="pstats order (ncalls, cumulative)")
    parser.add_argument("--flake8", action="store_true", help="flake8 -j1 with the plugin")
    args = parser.parse_args()
    if args.flake8:
        return _flake8(args)
    printed = io.StringIO()
    profile = cProfile.Profile()
    os.chdir(args.tree)
    argv = ["--isolated", "--no-cache", "-j", "1", "--exit-zero", "--output-format", "json", "."]
    with contextlib.redirect_stdout(printed):
        profile.enable()
        with contextlib.suppress(SystemExit):
            cli.main(argv)
        profile.disable()
    stats = pstats.Stats(profile)
    print("total calls", stats.total_calls)  # type: ignore[attr-defined]
    stats.sort_stats(args.sort).print_stats(args.top)
    if args.out:
        findings = json.loads(printed.getvalue())["findings"]
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(findings, out, indent=0, sort_keys=True)
        print(len(findings), "findings written to", args.out)
    return 0


def _flake8(args: argparse.Namespace) -> int:
    from flake8.main.cli import main as flake8_main

    out = os.path.abspath(args.out) if args.out else os.devnull
    profile = cProfile.Profile()
    os.chdir(args.tree)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["EXTSTREAM_CACHE_DIR"] = cache  # cold, and not in the tree
        argv = ["--isolated", "--select=E,F,W,XST", "-j", "1", "--output-file", out, "."]
        profile.enable()
        with contextlib.suppress(SystemExit):
            flake8_main(argv)
        profile.disable()
    stats = pstats.Stats(profile)
    print("total calls", stats.total_calls)  # type: ignore[attr-defined]
    stats.sort_stats(args.sort).print_stats(args.top)
    if args.out:
        print("flake8's output written to", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
