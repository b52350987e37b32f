"""Score extstream-lint on the held-out projects against their `# expect:` comments.

Markers, in a trailing comment:
  # expect: XST101 XST111      one defect per code, reported on this line
  # expect: XST103|XST104      one defect, either code accepted
  # or: XST101                 alternative line for the nearest same-file expect of that code
  # maybe: XST201              not counted either way (a consequence, or placement unclear)
Usage: python heldout/score.py [-v]   (run from the worktree root)
"""

import json
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
MARK = re.compile(r"#\s*(expect|or|maybe):\s*((?:XST\d{3}(?:\|XST\d{3})*\s*)+)")


def family(code: str) -> str:
    return "hazard" if code.startswith("XST2") else "call-site"


def read_marks(project: pathlib.Path):
    expects, alts, maybes = [], [], set()
    for path in sorted(project.rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        for n, line in enumerate(path.read_text().splitlines(), 1):
            for kind, codes in MARK.findall(line):
                for item in codes.split():
                    options = set(item.split("|"))
                    if kind == "expect":
                        expects.append({"file": rel, "lines": {n}, "codes": options, "hit": False})
                    elif kind == "or":
                        alts.append((rel, n, options))
                    else:
                        maybes |= {(rel, n, c) for c in options}
    for rel, n, options in alts:
        same = [e for e in expects if e["file"] == rel and e["codes"] & options]
        if same:
            min(same, key=lambda e: abs(min(e["lines"]) - n))["lines"].add(n)
    return expects, maybes


def lint(project: pathlib.Path):
    cmd = [
        sys.executable,
        "-m",
        "extstream_lint",
        "--isolated",
        "--no-cache",
        "--output-format",
        "json",
        "-j",
        "1",
        "--exit-zero",
        str(project.relative_to(ROOT)),
    ]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["findings"]


def score(project: pathlib.Path, verbose: bool):
    expects, maybes = read_marks(project)
    tp = {"call-site": 0, "hazard": 0}
    fp = {"call-site": 0, "hazard": 0}
    misses, alarms = [], []
    for f in lint(project):
        key = (f["filename"], f["line"], f["code"])
        match = next(
            (
                e
                for e in expects
                if not e["hit"]
                and e["file"] == key[0]
                and key[1] in e["lines"]
                and key[2] in e["codes"]
            ),
            None,
        )
        if match:
            match["hit"] = True
            tp[family(key[2])] += 1
        elif key not in maybes:
            fp[family(key[2])] += 1
            alarms.append(f)
    n = {"call-site": 0, "hazard": 0}
    for e in expects:
        fam = family(sorted(e["codes"])[0])
        n[fam] += 1
        if not e["hit"]:
            misses.append(e)
    if verbose:
        for e in misses:
            print(f"  MISS {e['file']}:{min(e['lines'])} {'|'.join(sorted(e['codes']))}")
        for f in alarms:
            print(f"  FALSE {f['filename']}:{f['line']} {f['code']} {f['message'][:150]}")
    return n, tp, fp


def ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "  -  "


def main() -> None:
    verbose = "-v" in sys.argv
    total_n = {"call-site": 0, "hazard": 0}
    total_tp = {"call-site": 0, "hazard": 0}
    total_fp = {"call-site": 0, "hazard": 0}
    print(
        f"{'project':<14} {'traps':>5} {'found':>5} {'false':>5} {'recall':>7} {'prec':>6}  "
        f"{'rec 0xx/1xx':>11} {'rec 2xx':>7}"
    )
    for project in sorted(p for p in HERE.iterdir() if p.is_dir() and p.name.startswith("p")):
        if verbose:
            print(project.name)
        n, tp, fp = score(project, verbose)
        for d, s in ((total_n, n), (total_tp, tp), (total_fp, fp)):
            for k in d:
                d[k] += s[k]
        row(project.name, n, tp, fp)
    row("TOTAL", total_n, total_tp, total_fp)


def row(name, n, tp, fp) -> None:
    N, T, F = sum(n.values()), sum(tp.values()), sum(fp.values())
    print(
        f"{name:<14} {N:>5} {T:>5} {F:>5} {ratio(T, N):>7} {ratio(T, T + F):>6}  "
        f"{ratio(tp['call-site'], n['call-site']):>11} {ratio(tp['hazard'], n['hazard']):>7}"
    )


if __name__ == "__main__":
    main()
