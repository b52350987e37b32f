"""Deterministic cost of one cold CLI run: Python function calls (cProfile), and its findings.

Counted, not timed, so two checkouts compare on a busy machine: the calls of
``extstream-lint --isolated --no-cache -j 1`` on ``TREE`` (one process, every module
analysed), the functions with the most own calls, and the findings as JSON in ``OUT`` (the
byte-for-byte check that a cheaper engine still finds the same). Run it with the checkout's
own interpreter from the repository root; ``--sort cumulative`` lists by time below each
function instead.

    python benchmarks/count_calls.py ~/.cache/extstream-bench/trees/stdlib/overlay /tmp/a.json
    python benchmarks/count_calls.py TREE OUT --top 40 --sort cumulative
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats

from extstream_lint.frontends import cli


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tree", help="the directory to lint (bench_real.py's trees)")
    parser.add_argument("out", nargs="?", help="where to write the findings (JSON)")
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument("--sort", default="ncalls", help="pstats order (ncalls, cumulative)")
    args = parser.parse_args()
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


if __name__ == "__main__":
    raise SystemExit(main())
