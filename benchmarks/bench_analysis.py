"""What does the analysis cost on files that do use ExternalStream, next to libcst's parser?

Target (issue: speed): on files that mention ExternalStream, ``analyze_source`` costs at most
2.5x libcst's bare ``parse_module`` on the same files. (For scale: libcst parsing alone is
about 9x ``ast.parse``, and full scope analysis about 33x, which is what TorchFix pays.)

The corpus is every file that passes our pre-filter among:

* ``lint``: the golden lint cases ``tests/lint_cases/*.py`` and ``examples/*.py``;
* ``torch_npu``: the torch-npu 2.13.0 wheel's own ``.py`` files (fetched into ``.cache/``
  with pip, as the tests do; ``--no-wheel`` leaves them out);
* ``torch``: torch's own sources that mention ``ExternalStream``/``stream_ptr`` (CUDA streams);
* ``torch+snippet``: realistically large files, each one real torch module with the bundled
  example's ExternalStream code appended.

Files this Python cannot parse (3.12 syntax cases) are left out: flake8 never runs plugins
on them. Each file is timed with ``ast.parse``, ``libcst.parse_module`` and ``analyze_source``
(given the ``ast`` tree, as flake8 gives it), in rotating order, over several repeats. It
prints the median total per group and per tool and the ratios against ``parse_module``; exit
status 1 if the target is missed. Run it by hand (never as a timed test)::

    python benchmarks/bench_analysis.py                  # 5 repeats, 60 synthesized files
    python benchmarks/bench_analysis.py --repeats 9 --synthesized 120 --no-wheel
"""

from __future__ import annotations

import argparse
import ast
import gc
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

Corpus = list[tuple[str, str, str]]  # (group, name, text)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _cpython_accepts(text: str) -> bool:
    """flake8 stops at E999 before plugins run, so only files CPython parses are timed."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def _torch_files() -> list[Path]:
    import torch

    root = Path(torch.__file__).parent
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def build_corpus(synthesized: int, with_wheel: bool) -> Corpus:
    from extstream_lint.project.prefilter import might_use_external_streams

    corpus: Corpus = []

    def add(group: str, paths: Sequence[Path]) -> None:
        for path in paths:
            text = _read(path)
            if text is not None and might_use_external_streams(text) and _cpython_accepts(text):
                corpus.append((group, str(path), text))

    add("lint", sorted((REPO / "tests" / "lint_cases").glob("*.py")))
    add("lint", sorted((REPO / "examples").glob("*.py")))
    if with_wheel:
        sys.path.insert(0, str(REPO))
        from tests import _npu_wheel  # the tests' own fetcher: pip download into .cache/

        try:
            tree = _npu_wheel.python_tree(_npu_wheel.DEFAULT_VERSION)
            add("torch_npu", sorted(tree.rglob("*.py")))
        except _npu_wheel.WheelUnavailable as error:
            print(f"torch_npu wheel unavailable, group left out: {str(error)[:200]}")
    torch_files = _torch_files()
    add("torch", torch_files)

    snippet = (REPO / "examples" / "interop.py").read_text(encoding="utf-8")
    # Modules of at least 8 kB, spread evenly over torch's tree (deterministic).
    sizeable = [p for p in torch_files if p.stat().st_size >= 8_000]
    step = max(1, len(sizeable) // max(1, synthesized))
    for path in sizeable[::step][:synthesized]:
        text = _read(path)
        if text is not None:
            name = f"{path}+interop.py"
            corpus.append(("torch+snippet", name, text.rstrip("\n") + "\n\n\n" + snippet))
    return corpus


def _timed(call: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(
    corpus: Corpus, repeats: int
) -> tuple[dict[str, dict[str, list[float]]], dict[str, int]]:
    """Per group and tool, the total seconds of each repeat; also the findings count."""
    import libcst

    from extstream_lint.analysis import analyze_source

    trees = [ast.parse(text) for _, _, text in corpus]
    tools: dict[str, Callable[[str, ast.Module], object]] = {
        "ast.parse": lambda text, tree: ast.parse(text),
        "libcst.parse_module": lambda text, tree: libcst.parse_module(text),
        "analyze_source": lambda text, tree: analyze_source(text, "<bench>", tree=tree),
    }
    names = list(tools)
    findings: dict[str, int] = defaultdict(int)
    for (group, name, text), tree in zip(corpus, trees):  # warm-up, and a sanity check
        for tool in names:
            tools[tool](text, tree)
        result = analyze_source(text, name, tree=tree)
        if any(f.code == "XST000" for f in result):
            print(f"  warning: XST000 on {name}: {result[0].message[:160]}")
        findings[group] += len(result)
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for repeat in range(repeats):
        sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for index, ((group, _, text), tree) in enumerate(zip(corpus, trees)):
            shift = (repeat + index) % len(names)  # rotate which tool goes first
            for tool in names[shift:] + names[:shift]:
                sums[group][tool] += _timed(lambda t=tool, s=text, a=tree: tools[t](s, a))
        for group, per_tool in sums.items():
            for tool, seconds in per_tool.items():
                totals[group][tool].append(seconds)
        for tool in names:
            totals["ALL"][tool].append(sum(per_tool[tool] for per_tool in sums.values()))
        print(f"  repeat {repeat + 1}/{repeats} done", flush=True)
    return totals, findings


def report(
    corpus: Corpus, totals: dict[str, dict[str, list[float]]], findings: dict[str, int]
) -> float:
    sizes: dict[str, list[int]] = defaultdict(list)
    for group, _, text in corpus:
        sizes[group].append(len(text.encode("utf-8")))
        sizes["ALL"].append(len(text.encode("utf-8")))
    findings["ALL"] = sum(findings.values())
    print(f"\n{len(corpus)} files; median over repeats of each group's total time")
    header = (
        f"{'group':15} {'files':>5} {'MB':>6} {'findings':>8} {'ast.parse':>10} {'libcst':>10} "
        f"{'analysis':>10} {'libcst/ast':>10} {'analysis/libcst':>16}"
    )
    print(header)
    overall = 0.0
    for group in [g for g in totals if g != "ALL"] + ["ALL"]:
        med = {tool: statistics.median(values) for tool, values in totals[group].items()}
        ratio = med["analyze_source"] / med["libcst.parse_module"]
        print(
            f"{group:15} {len(sizes[group]):5d} {sum(sizes[group]) / 1e6:6.2f} "
            f"{findings[group]:8d} "
            f"{med['ast.parse']:9.3f}s {med['libcst.parse_module']:9.3f}s "
            f"{med['analyze_source']:9.3f}s {med['libcst.parse_module'] / med['ast.parse']:9.1f}x "
            f"{ratio:15.2f}x"
        )
        if group == "ALL":
            overall = ratio
    print(f"\nanalyze_source / libcst.parse_module = {overall:.2f}x (target <= 2.5x)")
    return overall


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed passes (5)")
    parser.add_argument(
        "--synthesized", type=int, default=60, help="torch modules + snippet files (60)"
    )
    parser.add_argument("--no-wheel", action="store_true", help="leave torch_npu's files out")
    args = parser.parse_args(argv)
    corpus = build_corpus(args.synthesized, with_wheel=not args.no_wheel)
    groups = sorted({group for group, _, _ in corpus})
    print(f"python {sys.version.split()[0]}, pid {os.getpid()}, corpus groups: {groups}")
    totals, findings = measure(corpus, args.repeats)
    ratio = report(corpus, totals, findings)
    return 0 if ratio <= 2.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
