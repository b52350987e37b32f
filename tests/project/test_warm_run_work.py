"""What a warm ``extstream-lint`` run does, counted in a fresh process (issue 42): with nothing
changed it parses nothing, summarises nothing, writes nothing, unpickles no summary and
imports no libcst (the text report's fix hints included); after an edit of a function body
that changes no exported fact, only the edited module is parsed and summarised again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from extstream_lint.frontends.fixes import has_rewriter

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "proj"
#: A file with two findings that have a fix (XST101, XST106): the text report says so.
INTEROP = Path(__file__).resolve().parents[2] / "examples" / "interop.py"

#: Runs the command in this process and prints, on stderr, what it did.
_DRIVER = """\
import json, sys
from collections import Counter
from extstream_lint.analysis.driver import cache as cache_mod, index as index_mod, reuse
from extstream_lint.frontends.cli import main
from extstream_lint.project import diskio, safe_pickle, sources

made, loads, counts = [], Counter(), Counter()
init = index_mod.ProjectIndex.__init__
def counted_init(self, *args, **kwargs):
    made.append(self)
    init(self, *args, **kwargs)
index_mod.ProjectIndex.__init__ = counted_init
load, store = cache_mod.DiskCache.load, cache_mod.DiskCache.store
def counted_load(self, path, kind=""):
    loads[kind or "summary:"] += 1
    return load(self, path, kind)
def counted_store(self, path, entry, kind=""):
    counts["writes"] += 1
    return store(self, path, entry, kind)
cache_mod.DiskCache.load, cache_mod.DiskCache.store = counted_load, counted_store
disk_load, plain_loads = diskio.load, safe_pickle.loads
def counted_disk_load(location):
    counts["files"] += 1
    return disk_load(location)
def counted_loads(*args, **kwargs):
    counts["unpickled"] += 1
    return plain_loads(*args, **kwargs)
diskio.load = cache_mod.load = sources.load = counted_disk_load  # every reader's name
safe_pickle.loads = counted_loads
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps({
    "parses": sorted(index_mod.PARSES.elements()),
    "summarised": sorted(p for index in made for p in index.analysed),
    "pickled": sum(reuse.BODIES.values()),
    "entries": dict(loads),
    "bodies": counts["unpickled"] - counts["files"],
    "writes": counts["writes"],
    "opens": dict(sources.OPENS),
    "libcst": "libcst" in sys.modules,
}), file=sys.stderr)
"""


def _project(root: Path) -> Path:
    shutil.copytree(FIXTURE, root)
    shutil.copy(INTEROP, root / "interop.py")
    (root / "pyproject.toml").write_text("[project]\nname = 'proj'\n", encoding="utf-8")
    return root


def _run(root: Path) -> tuple[str, dict, str]:
    proc = subprocess.run(
        [sys.executable, "-c", _DRIVER, "--isolated", "-j", "1", "."],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    *said, counts = proc.stderr.splitlines()
    return proc.stdout, json.loads(counts), "\n".join(said)


def _names(paths: list[str] | dict[str, int]) -> list[str]:
    return sorted(Path(p).name for p in paths)


def test_a_warm_run_with_nothing_changed(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj")
    cold_out, cold, cold_said = _run(root)
    assert "interop.py:20:5: XST101" in cold_out and "2 hidden fixes" in cold_said, cold_said
    assert cold["parses"] and cold["summarised"] and cold["libcst"]
    warm_out, warm, warm_said = _run(root)
    assert (warm_out, warm_said) == (cold_out, cold_said)
    assert warm["parses"] == [] and warm["summarised"] == [] and warm["pickled"] == 0
    assert warm["writes"] == 0 and warm["bodies"] == 0  # no summary unpickled
    assert warm["libcst"] is False
    # files read: each file the pre-filter lets through, once (its findings are checked
    # against its text), none of the others; one entry per such file and per summary
    # its findings rest on, and one of fixes per file with a finding of a rule that has one
    assert set(warm["opens"].values()) == {1}
    assert len(warm["opens"]) < len(list(root.rglob("*.py")))
    assert warm["entries"]["findings:"] == len(warm["opens"])
    assert warm["entries"]["summary:"] <= len(cold["summarised"])
    fixable = {
        line.split(":")[0] for line in cold_out.splitlines() if has_rewriter(line.split()[1])
    }
    assert warm["entries"]["fixes:"] == len(fixable) >= 1


def test_a_body_edit_that_changes_no_fact_resummarises_only_the_edited_module(
    tmp_path: Path,
) -> None:
    """bench_real's "hub edited" row: the module others import changes inside a body (same
    lines, same exports); its importers' summaries and findings are reused (the digests
    of the names they read are unchanged)."""
    root = _project(tmp_path / "proj")
    cold_out, cold, _ = _run(root)
    # imported by app.py, pkg/__init__.py and pkg/sub/{relay,maker,user}.py
    streams = root / "pkg" / "streams.py"
    assert "streams.py" in _names(cold["summarised"])
    text = streams.read_text(encoding="utf-8")
    edited = text.replace("    return torch.npu.Stream()\n", "    return torch.npu.Stream()  # 1\n")
    assert edited != text
    streams.write_text(edited, encoding="utf-8")
    later = os.stat(streams).st_mtime_ns + 1_000_000_000
    os.utime(streams, ns=(later, later))
    out, after, _ = _run(root)
    assert out == cold_out
    assert _names(after["parses"]) == ["streams.py"]
    assert _names(after["summarised"]) == ["streams.py"]
    assert after["libcst"]  # it was parsed
    _, warm, _ = _run(root)
    assert warm["parses"] == [] and warm["summarised"] == [] and warm["writes"] == 0
