"""Import cycles summarised as a whole: by a worklist, with what is stored kept linear.

Counted, never timed: how many times members are summarised, how many bytes the disk
cache holds. Each test also checks the finding the cycle must carry, so a cheaper
iteration can never pass by knowing less.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.driver import index
from extstream_lint.analysis.driver.cache import CACHE_DIR, DiskCache
from extstream_lint.analysis.driver.digests import group_key
from extstream_lint.analysis.driver.entries import StoredEntry
from extstream_lint.analysis.driver.index import ProjectIndex
from extstream_lint.project import diskio


def _write(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'g'\n", encoding="utf-8")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")  # others keep their stamps


def _codes(root: Path, name: str, project: ProjectIndex) -> list[tuple[int, str]]:
    path = root / name
    found = analyze_source(path.read_text(encoding="utf-8"), str(path), project=project)
    return [(f.line, f.code) for f in found]


RING = 30
_LEAF = (
    "from torch_npu.npu import ExternalStream\nfrom gen.m00 import f\n\n\n"
    "def run(ptr):\n    f(ExternalStream(ptr))\n"
)


def _ring(root: Path) -> None:
    """m00 -> m01 -> ... -> m29 -> m00: each ``f`` hands its argument to the next; the
    last one synchronizes it. The sink travels the whole ring, against the imports."""
    files = {"gen/__init__.py": "", "leaf.py": _LEAF}
    for n in range(RING):
        following = (n + 1) % RING
        body = "    s.synchronize()\n" if n == RING - 1 else f"    m{following:02d}.f(s)\n"
        files[f"gen/m{n:02d}.py"] = f"from gen import m{following:02d}\n\n\ndef f(s):\n{body}"
    _write(root, files)


def test_a_ring_is_summarised_about_once_per_member(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    _ring(tmp_path)
    assert _codes(tmp_path, "leaf.py", ProjectIndex()) == [(6, "XST101")]
    ring = {name: count for name, count in summaries.items() if name.startswith("m")}
    assert len(ring) == RING
    # Members in import order: each sees the facts of the ones it imports. Only the one
    # whose import closes the ring (it saw nothing of m00 yet) runs again; rounds of every
    # member would need one round per member to carry the sink around.
    assert sum(ring.values()) <= RING + 2, summaries.most_common(5)


_HELD_CYCLE = {
    "gen/__init__.py": "",
    "gen/a.py": "from gen import q\n\n\ndef sink(s):\n    s.synchronize()\n",
    "gen/q.py": "from gen import r\n\n\ndef use(s):\n    r.m.relay(s)\n",
    "gen/r.py": "from gen import m\n",
    "gen/m.py": "from gen import a\n\n\ndef relay(s):\n    a.sink(s)\n",
    "leaf.py": (
        "from torch_npu.npu import ExternalStream\nfrom gen.q import use\n\n\n"
        "def run(ptr):\n    use(ExternalStream(ptr))\n"
    ),
}


def test_a_module_held_by_another_is_read_as_it_is_now(tmp_path: Path) -> None:
    """``q`` reads ``r.m.relay``; ``m`` learns its sink only after ``q`` ran (``m`` closes
    the cycle), and ``r``'s own facts do not change (it only holds ``m``). ``q`` must see
    ``m`` as it ends, so ``m`` counts as read by ``q``."""
    _write(tmp_path, _HELD_CYCLE)
    assert _codes(tmp_path, "leaf.py", ProjectIndex()) == [(6, "XST101")]


def test_a_member_that_only_holds_a_later_one_is_summarised_once(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    """``y`` runs first (``x`` imports it at the top level) and only holds ``x``, still
    pending: it keeps the module ``x``'s summary then fills in, and is not summarised
    again for it. The leaf reaches ``x``'s sink through what ``y`` holds."""
    _write(
        tmp_path,
        {
            "gen/__init__.py": "",
            "gen/x.py": "from gen import y\n\n\ndef helper(s):\n    s.synchronize()\n",
            "gen/y.py": "from gen import x\n\n\ndef later():\n    return x\n",
            "leaf.py": (
                "from torch_npu.npu import ExternalStream\nfrom gen import y\n\n\n"
                "def run(ptr):\n    y.x.helper(ExternalStream(ptr))\n"
            ),
        },
    )
    assert _codes(tmp_path, "leaf.py", ProjectIndex()) == [(6, "XST101")]
    assert summaries["x.py"] == 1 and summaries["y.py"] == 1, summaries


def test_every_member_is_summarised_once_before_any_again(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    """``hub`` runs first (each leaf imports it at the top level) and reads each leaf's
    ``f`` inside a function, pending until that leaf is summarised: run again after each
    leaf's first summary, it would be summarised once per leaf (os reading posixpath,
    subprocess... on the standard library: four times here, the cap); after every first
    summary, once more."""
    leaves = 3
    files = {"gen/__init__.py": ""}
    uses = []
    for n in range(leaves):
        files[f"gen/l{n}.py"] = f"from gen import hub\n\n\ndef f(s):\n    hub.g{n}(s)\n"
        uses.append(f"def use{n}(s):\n    from gen import l{n}\n\n    l{n}.f(s)\n")
    sinks = [f"def g{n}(s):\n    s.synchronize()\n" for n in range(leaves)]
    files["gen/hub.py"] = "\n\n".join(sinks + uses)
    files["leaf.py"] = (
        "from torch_npu.npu import ExternalStream\nfrom gen import hub\n\n\n"
        "def run(ptr):\n    hub.use2(ExternalStream(ptr))\n"
    )
    _write(tmp_path, files)
    assert _codes(tmp_path, "leaf.py", ProjectIndex()) == [(6, "XST101")]
    assert summaries["hub.py"] == 2, summaries
    assert all(summaries[f"l{n}.py"] == 1 for n in range(leaves)), summaries


def test_members_are_ordered_by_their_top_level_imports(tmp_path: Path) -> None:
    """``a`` imports ``b`` only inside a function, ``b`` imports ``a`` at the top level:
    ``a`` first, whatever the names' order (mypy orders an import cycle the same way)."""
    _write(
        tmp_path,
        {
            "gen/__init__.py": "",
            "gen/a.py": "def use(s):\n    from gen import b\n\n    b.drain(s)\n",
            "gen/b.py": "from gen import a\n\n\ndef drain(s):\n    s.synchronize()\n",
        },
    )
    a, b = (str(tmp_path / "gen" / name) for name in ("a.py", "b.py"))
    project = ProjectIndex()
    assert project._order((a, b)) == [a, b]
    assert project._order((b, a)) == [a, b]


def _chain(root: Path, size: int) -> None:
    """m00 <- m01 <- ...: each module holds the one before it, its ``g`` calls that one's."""
    files = {
        "gen/__init__.py": "",
        "gen/m00.py": (
            "from torch_npu.npu import ExternalStream\n\n\n"
            "def g0(ptr):\n    return ExternalStream(ptr)\n"
        ),
    }
    for n in range(1, size):
        files[f"gen/m{n:02d}.py"] = (
            f"from gen import m{n - 1:02d} as before\n\n\n"
            f"def g{n}(ptr):\n    return before.g{n - 1}(ptr)\n"
        )
    files["leaf.py"] = (
        f"from gen.m{size - 1:02d} import g{size - 1}\n\n\n"
        f"def run(ptr):\n    g{size - 1}(ptr).synchronize()\n"
    )
    _write(root, files)


def _stored_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in (root / CACHE_DIR).rglob("*.pickle"))


def test_stored_summaries_name_the_modules_they_hold(tmp_path: Path) -> None:
    """A summary that holds another module stores its name, not a copy of its summary
    (and, through it, of everything it reaches): the cache grows with the project, and a
    warm run reads it back to the same findings."""
    sizes = {}
    for size in (20, 40):
        root = tmp_path / f"chain{size}"
        _chain(root, size)
        cold = _codes(root, "leaf.py", ProjectIndex(cache=DiskCache()))
        assert cold == [(5, "XST101")]
        sizes[size] = _stored_bytes(root)
        warm_index = ProjectIndex(cache=DiskCache())
        assert _codes(root, "leaf.py", warm_index) == cold
        assert not warm_index.analysed  # every summary came from the cache
    assert sizes[40] <= 2.3 * sizes[20], sizes  # a copy per entry would make it 4x


def test_parses_count_each_member_once(tmp_path: Path) -> None:
    _ring(tmp_path)
    before = index.PARSES.copy()
    _codes(tmp_path, "leaf.py", ProjectIndex())
    parsed = index.PARSES - before
    assert parsed and max(parsed.values()) == 1


_SMALL_RING = 6
_BODIES = {
    "pass": "    m{next:02d}.f(s)\n",
    "sink": "    s.synchronize()\n",
    "both": "    s.query()\n    m{next:02d}.f(s)\n",
    "none": "    return s\n",
    "comment": "    m{next:02d}.f(s)  # edited\n",
    # A new export no one reads: readers of f only are not recomputed.
    "extra": "    m{next:02d}.f(s)\n\n\ndef g(s):\n    s.synchronize()\n",
}


def _small_ring(root: Path, bodies: dict[int, str]) -> None:
    files = {"gen/__init__.py": "", "leaf.py": _LEAF}
    for n in range(_SMALL_RING):
        following = (n + 1) % _SMALL_RING
        body = _BODIES[bodies.get(n, "sink" if n == _SMALL_RING - 1 else "pass")]
        files[f"gen/m{n:02d}.py"] = (
            f"from gen import m{following:02d}\n\n\ndef f(s):\n" + body.format(next=following)
        )
    _write(root, files)


def _all_codes(root: Path, project: ProjectIndex) -> list[tuple[str, int, str]]:
    names = ["leaf.py"] + [f"gen/m{n:02d}.py" for n in range(_SMALL_RING)]
    return [(name, *found) for name in names for found in _codes(root, name, project)]


@settings(max_examples=10, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, _SMALL_RING - 1), st.sampled_from(sorted(_BODIES))),
        min_size=1,
        max_size=5,
    )
)
def test_a_cycle_computed_again_after_edits_agrees_with_a_fresh_one(
    edits: list[tuple[int, str]],
) -> None:
    """Replayed summaries (kept with what they read) give exactly a fresh computation,
    on disk and in a long-lived index, whatever members are edited, in any order."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        bodies: dict[int, str] = {}
        _small_ring(root, bodies)
        memory = ProjectIndex(cache=DiskCache())
        _all_codes(root, memory)
        for tick, (member, body) in enumerate(edits, 1):
            bodies[member] = body
            _small_ring(root, bodies)
            path = root / "gen" / f"m{member:02d}.py"
            stamp = path.stat().st_mtime_ns + tick * 1_000_000_000
            os.utime(path, ns=(stamp, stamp))
            fresh = _all_codes(root, ProjectIndex())
            assert _all_codes(root, ProjectIndex(cache=DiskCache())) == fresh
            assert _all_codes(root, memory) == fresh


_DRIVER = """\
import sys
from flake8.main.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("libcst imported:", "libcst" in sys.modules, file=sys.stderr)
"""


def test_kept_findings_need_no_libcst(tmp_path: Path) -> None:
    """An editor's flake8 on an unchanged file: the kept findings come back without
    libcst being imported (its import alone costs about what flake8's own checks do)."""
    _chain(tmp_path, 5)

    def flake8() -> tuple[str, str]:
        proc = subprocess.run(
            [sys.executable, "-c", _DRIVER, "--isolated", "--select=XST", "leaf.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return proc.stdout, proc.stderr

    cold_out, cold_err = flake8()
    assert "leaf.py:5:" in cold_out and "XST101" in cold_out, cold_out + cold_err
    assert "libcst imported: True" in cold_err
    warm_out, warm_err = flake8()
    assert warm_out == cold_out
    assert "libcst imported: False" in warm_err, warm_err


def test_a_damaged_stored_summary_is_computed_again(tmp_path: Path) -> None:
    """Stored summaries are unpickled only when asked for; one that cannot be (its body
    damaged after its header was checked) makes its component computed from source."""
    _chain(tmp_path, 6)
    cold = _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache()))
    damaged = 0
    for path in (tmp_path / CACHE_DIR).rglob("*.pickle"):
        entry = diskio.load(str(path))
        garbage = b"\x80garbage"
        if isinstance(entry, StoredEntry):
            diskio.store(str(path), dataclasses.replace(entry, body=garbage))
            damaged += 1
        elif isinstance(entry, list):  # the summaries a replay would take
            diskio.store(str(path), [dataclasses.replace(e, body=garbage) for e in entry])
    assert damaged
    leaf = tmp_path / "leaf.py"
    leaf.write_text(leaf.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    again = ProjectIndex(cache=DiskCache())
    assert _codes(tmp_path, "leaf.py", again) == cold
    assert again.analysed  # computed from source, not taken from the damaged bodies


def test_a_damaged_replay_in_a_cycle_is_summarised_from_source_and_healed(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    """Replays are unpickled only when read; one whose body cannot be read is found then,
    in the middle of its cycle's computation: summarised from source (its readings held,
    so the same summary), and its damaged body is not stored again."""
    _ring(tmp_path)
    cold = _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache()))
    assert cold == [(6, "XST101")]
    for path in (tmp_path / CACHE_DIR).rglob("*.pickle"):
        entry = diskio.load(str(path))
        if isinstance(entry, list):  # the summaries a replay would take
            diskio.store(str(path), [dataclasses.replace(e, body=b"\x80bad") for e in entry])
    edited = tmp_path / "gen" / "m10.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    stamp = edited.stat().st_mtime_ns + 1_000_000_000
    os.utime(edited, ns=(stamp, stamp))
    summaries.clear()
    assert _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache())) == cold
    assert summaries["m10.py"] >= 1
    damaged_now = sum(summaries.values())
    assert damaged_now > 1  # replays read and found damaged were summarised again
    for _ in range(2):  # the damaged bodies are gone: then an edit costs the edit
        stamp += 1_000_000_000
        edited.write_text(edited.read_text(encoding="utf-8") + "#\n", encoding="utf-8")
        os.utime(edited, ns=(stamp, stamp))
        summaries.clear()
        assert _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache())) == cold
    assert sum(summaries.values()) <= 2, summaries


def _edit(path: Path, step: int) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "#\n", encoding="utf-8")
    stamp = path.stat().st_mtime_ns + step * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def test_a_module_holding_one_not_read_yet_keeps_its_digest(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    """``r`` only holds ``m``; revived from the cache, ``m`` is not unpickled until read.
    ``r``'s digest names it all the same (by name, as any held module), so an edit of
    ``r`` that changes nothing leaves ``q``, which reads ``r.m``, alone, run after run."""
    _write(tmp_path, _HELD_CYCLE)
    assert _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache())) == [(6, "XST101")]
    for step in range(1, 4):
        _edit(tmp_path / "gen" / "r.py", step)
        summaries.clear()
        assert _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache())) == [(6, "XST101")]
        assert dict(summaries) == {"r.py": 1}, summaries


def test_a_damaged_replay_read_after_its_cycle_is_final_heals_the_cycle(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    """A replayed summary read only by the lint, after its cycle is final: its damaged body
    makes the whole cycle computed again (not the member alone, which would store a
    one-member group and break the cycle's reuse for good), and its replays are dropped."""
    _write(tmp_path, _HELD_CYCLE)
    cold = analyze_source(
        (tmp_path / "leaf.py").read_text(encoding="utf-8"),
        str(tmp_path / "leaf.py"),
        project=ProjectIndex(cache=DiskCache()),
        kept=False,
    )
    for path in (tmp_path / CACHE_DIR).rglob("*.pickle"):
        entry = diskio.load(str(path))
        if isinstance(entry, list):
            diskio.store(str(path), [dataclasses.replace(e, body=b"\x80bad") for e in entry])
    cycle = tuple(sorted(str(tmp_path / "gen" / f"{n}.py") for n in "aqrm"))
    for step in range(1, 4):
        _edit(tmp_path / "gen" / "a.py", step)
        summaries.clear()
        project = ProjectIndex(cache=DiskCache())
        leaf = tmp_path / "leaf.py"
        text = leaf.read_text(encoding="utf-8")
        found = analyze_source(text, str(leaf), project=project, kept=False)
        assert [(f.line, f.code) for f in found] == [(f.line, f.code) for f in cold]
        for member in cycle:
            stored = DiskCache().load(member)
            assert isinstance(stored, StoredEntry) and stored.group == group_key(cycle)
    assert dict(summaries) == {"a.py": 1}, summaries  # healed: an edit costs the edit


def test_a_changed_file_checks_its_kept_findings_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The adapters ask for kept findings before importing the analysis; a file that must
    be analysed again is not checked a second time by the analysis."""
    from extstream_lint.analysis.driver import projects
    from extstream_lint.frontends import cli

    _chain(tmp_path, 4)
    leaf = tmp_path / "leaf.py"
    projects._INDEXES.clear()
    cold = cli._analyse(leaf.read_text(encoding="utf-8"), str(leaf), (), True)
    leaf.write_text(leaf.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    loads: Counter[str] = Counter()
    original = DiskCache.load

    def counting(self: DiskCache, path: str, kind: str = "") -> object:
        loads[kind] += 1
        return original(self, path, kind)

    monkeypatch.setattr(DiskCache, "load", counting)
    projects._INDEXES.clear()
    again = cli._analyse(leaf.read_text(encoding="utf-8"), str(leaf), (), True)
    assert again == cold
    assert loads["findings:"] == 1, loads


def test_a_digest_is_of_the_facts_not_of_how_they_were_learnt() -> None:
    """Two summaries that say the same, one learnt in more passes (its counters differ)
    and with its sets built in another order, have one digest: their readers are not
    summarised again when a module is computed afresh after an edit."""
    from extstream_lint.analysis.abstract.atoms import Const
    from extstream_lint.analysis.abstract.values import ClassInfo, FunctionInfo, Module
    from extstream_lint.analysis.driver.digests import digests

    def made(passes: int, names: list[str]) -> Module:
        info = FunctionInfo("f", returns=Const(1), returns_pass=passes)
        info.summary.version = passes * 3
        cls = ClassInfo("C", methods={"f": info})
        for name in names:
            cls.init_only.add(name)
        info.decorators = frozenset(names)
        return Module("m", {"C": cls, "f": info})

    first, second = made(2, ["a", "b", "c"]), made(4, ["c", "a", "b"])
    assert digests(first, {}) == digests(second, {})
    changed = made(2, ["a", "b", "c"])
    changed.exports["f"].returns = Const(2)  # type: ignore[union-attr]
    assert digests(changed, {})[1]["f"] != digests(first, {})[1]["f"]


def test_an_edit_that_keeps_a_members_facts_leaves_its_readers_alone(
    tmp_path: Path, summaries: Counter[str]
) -> None:
    """``hub`` holds an instance of a class based on ``base``'s, a member of its cycle.
    After an edit of ``hub`` that changes none of that, ``base`` is replayed from the cache
    and ``hub`` computed afresh: the instance must keep its digest (it names ``base``'s
    class by reference, however the objects that carry it were made), so that ``reader``,
    which reads it, is not summarised again."""
    files = {
        "gen/__init__.py": "",
        "gen/base.py": (
            "from gen import hub\n\n\nclass Base:\n    def get(self, key, default=None):\n"
            "        return default\n\n    def put(self, key, value):\n        pass\n"
        ),
        "gen/hub.py": (
            "from gen.base import Base\nfrom gen.adapter import make_ext\n\n\n"
            "class Env(Base):\n    def keys(self):\n        return []\n\n\n"
            "environ = Env()\n\n\ndef edited():\n    return 1\n"
        ),
        "gen/adapter.py": (
            "from torch_npu.npu import ExternalStream\n\n\n"
            "def make_ext(ptr):\n    return ExternalStream(ptr)\n"
        ),
        "gen/reader.py": (
            "from gen.hub import environ\n\n\n"
            "def use(s):\n    environ.get('x')\n    s.synchronize()\n"
        ),
        "leaf.py": (
            "from gen.adapter import make_ext\nfrom gen.reader import use\n\n\n"
            "def run(ptr):\n    use(make_ext(ptr))\n"
        ),
    }
    _write(tmp_path, files)
    assert _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache())) == [(6, "XST101")]
    files["gen/hub.py"] = files["gen/hub.py"].replace("return 1", "return 2")
    _write(tmp_path, files)
    hub = tmp_path / "gen" / "hub.py"
    stamp = hub.stat().st_mtime_ns + 1_000_000_000
    os.utime(hub, ns=(stamp, stamp))
    summaries.clear()
    assert _codes(tmp_path, "leaf.py", ProjectIndex(cache=DiskCache())) == [(6, "XST101")]
    assert summaries["hub.py"] >= 1 and summaries["reader.py"] == 0, summaries


def _big_ring(root: Path, size: int) -> None:
    """A cycle of ``size`` modules (each imports the next; the last, the first) with a
    file outside it that imports the cycle, under a long directory name: a stored entry
    that repeated the member list would grow with the cycle."""
    package = "generated_modules_of_a_long_cycle"
    files = {f"{package}/__init__.py": ""}
    for n in range(size):
        following = (n + 1) % size
        # each sink is its own (a sink handed along the ring records the helpers it went
        # through: the summaries' own content, which grows with the distance)
        files[f"{package}/m{n:04d}.py"] = (
            f"from {package} import m{following:04d}\n\n\n"
            f"def f(s):\n    s.synchronize()\n\n\ndef g():\n    return m{following:04d}.f\n"
        )
    files["leaf.py"] = (
        "from torch_npu.npu import ExternalStream\n"
        f"from {package}.m0000 import f\n\n\ndef run(p):\n    f(ExternalStream(p))\n"
    )
    _write(root, files)


def test_the_cache_of_a_cycle_grows_linearly_with_it(tmp_path: Path) -> None:
    """Bytes kept per member of a cycle stay the same as the cycle grows (counted, not
    timed): each entry names its component by a key; the members are not stored in
    every entry (a 1,200-module cycle wrote 13 times the cache of a 300-module one)."""
    per_member = {}
    for size in (25, 50, 100, 200):
        root = tmp_path / f"ring{size}"
        _big_ring(root, size)
        leaf = root / "leaf.py"
        found = analyze_source(
            leaf.read_text(encoding="utf-8"), str(leaf), project=ProjectIndex(cache=DiskCache())
        )
        assert [f.code for f in found] == ["XST101"]
        entries = [
            p
            for p in (root / CACHE_DIR).rglob("*.pickle")
            if not p.name.startswith(("imports-", "spelled-", "carried-", "census-"))
        ]
        per_member[size] = sum(p.stat().st_size for p in entries) / size
    assert per_member[200] <= per_member[25] * 1.15, per_member
    # and a warm run reuses every entry: the keys name the same component again
    warm = ProjectIndex(cache=DiskCache())
    leaf = tmp_path / "ring200" / "leaf.py"
    found = analyze_source(leaf.read_text(encoding="utf-8"), str(leaf), project=warm, kept=False)
    assert [f.code for f in found] == ["XST101"] and not warm.analysed
