"""The pre-filter's verdicts: kept in ``.extstream_cache/``, checked by stamps, exact.

A warm CLI run must not read a file whose stored "no" still holds; yet any edit below a
file (a module it imports, transitively, or a module that appears where none was) must
change its verdict on the next run, with no manual clearing, in a new process as in a
long-lived one (an editor linting in-process).
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extstream_lint.analysis.driver import engine, projects
from extstream_lint.frontends import cli
from extstream_lint.project import diskio, sealing, sources
from extstream_lint.project.diskio import CACHE_DIR
from extstream_lint.project.prefilter import should_analyse

_ADAPTER = (
    "from torch_npu.npu import ExternalStream\n\n\ndef make_ext(p):\n    return ExternalStream(p)\n"
)
_RELAY_PLAIN = "import torch\n\n\ndef get(p):\n    return torch.npu.Stream()\n"
_RELAY_EXT = "from pkg.adapter import make_ext\n\n\ndef get(p):\n    return make_ext(p)\n"
_USER = "from pkg import relay\n\n\ndef run(p):\n    relay.get(p).query()\n"
_FILLER = "import math\n\n\ndef f{n}(x):\n    return math.sqrt(x)\n"


def _write(path: Path, text: str, tick: int = 0) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if tick:  # mtime granularity must not hide an edit: move it explicitly
        stamp = os.stat(path).st_mtime_ns + tick * 1_000_000_000
        os.utime(path, ns=(stamp, stamp))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    _write(root / "pkg" / "__init__.py", "")
    _write(root / "pkg" / "adapter.py", _ADAPTER)
    _write(root / "pkg" / "relay.py", _RELAY_PLAIN)
    _write(root / "pkg" / "user.py", _USER)
    for n in range(5):
        _write(root / "pkg" / f"filler{n}.py", _FILLER.format(n=n))
    return root


def _new_process() -> None:
    """Forget what this process learnt, as a new ``extstream-lint`` process would."""
    for key in [k for k in projects._INDEXES if k[1]]:
        del projects._INDEXES[key]
    for key in [k for k in sources._SHARED if k[1]]:
        del sources._SHARED[key]


def _run(root: Path, cache: bool = True, reads: list[str] | None = None) -> set[tuple[str, int]]:
    options = cli.Options(
        (str(root / "pkg"),),
        cli.Selection(("XST",), (), (), str(root)),
        (),
        str(root),
        jobs=1,
        cache=cache,
    )
    before = sources.OPENS.copy()
    found = cli.run(options)
    if reads is not None:  # every open of a project file, by the one function that opens
        opened = sources.OPENS - before
        reads.extend(os.path.basename(path) for path in opened.elements())
    return {(os.path.basename(item.path), item.finding.line) for item in found}


def test_a_warm_run_reads_only_the_files_it_analyses(project: Path) -> None:
    _write(project / "pkg" / "relay.py", _RELAY_EXT)
    cold: list[str] = []
    assert _run(project, reads=cold) == {("user.py", 5)}
    assert sorted(cold) == sorted(
        ["__init__.py", "adapter.py", "relay.py", "user.py"] + [f"filler{n}.py" for n in range(5)]
    )  # every file, once
    assert list((project / CACHE_DIR).rglob("imports-*.pickle"))
    _new_process()
    warm: list[str] = []
    assert _run(project, reads=warm) == {("user.py", 5)}
    # The files that need the analysis; the fillers and the empty __init__ are not read.
    assert sorted(warm) == ["adapter.py", "relay.py", "user.py"]


def test_an_irrelevant_verdict_turns_relevant_when_an_import_changes(project: Path) -> None:
    # user.py imports relay, which at first hands out only managed streams: "no".
    assert _run(project) == set()
    _new_process()
    reads: list[str] = []
    assert _run(project, reads=reads) == set()
    assert "user.py" not in reads  # its "no" came from the cache
    _write(project / "pkg" / "relay.py", _RELAY_EXT, tick=1)
    _new_process()
    assert _run(project) == {("user.py", 5)}  # no manual clearing
    _write(project / "pkg" / "relay.py", _RELAY_PLAIN, tick=2)
    _new_process()
    assert _run(project) == set()
    assert _run(project, cache=False) == set()


def test_a_module_that_appears_changes_the_verdict(project: Path) -> None:
    _write(
        project / "pkg" / "user.py",
        "from pkg import later\n\n\ndef run(p):\n    later.get(p).query()\n",
    )
    assert _run(project) == set()
    _write(project / "pkg" / "later.py", _RELAY_EXT)
    _new_process()
    assert _run(project) == {("user.py", 5)}


def test_corrupt_or_foreign_verdict_tables_are_ignored(project: Path) -> None:
    _write(project / "pkg" / "relay.py", _RELAY_EXT)
    expected = _run(project)
    for number, table in enumerate((project / CACHE_DIR).rglob("imports-*.pickle")):
        table.write_bytes(b"\x80\x05garbage" if number % 2 else b"")
        _new_process()
        assert _run(project) == expected

        diskio.store(str(table), {"x": (1, 2)})  # another layout, sealed
        _new_process()
        assert _run(project) == expected
        user = os.stat(project / "pkg" / "user.py")
        stamp = (user.st_size, user.st_mtime_ns)  # so that the damaged probes are read
        damaged = {str(project / "pkg" / "user.py"): (stamp, False, 7, ("a", None))}
        diskio.store(str(table), damaged)  # the right shape, wrong insides
        _new_process()
        assert _run(project) == expected


def test_in_a_long_lived_process_edits_and_new_modules_are_seen(project: Path) -> None:
    # An editor running flake8 in-process: the same memo across lint calls, no run scope.
    user = project / "pkg" / "user.py"
    text = user.read_text(encoding="utf-8")
    assert not should_analyse(text, str(user))
    _write(project / "pkg" / "relay.py", _RELAY_EXT, tick=1)
    assert should_analyse(text, str(user))  # an imported module was edited
    later = "from pkg import later\n\n\ndef run(p):\n    later.get(p).query()\n"
    assert not should_analyse(later, str(user))
    _write(project / "pkg" / "later.py", _RELAY_EXT)
    assert should_analyse(later, str(user))  # a module appeared
    found = engine.analyze_source(later, str(user))
    assert [f.code for f in found] == ["XST102"]
    (project / "pkg" / "later.py").unlink()
    assert not should_analyse(later, str(user))
    assert engine.analyze_source(later, str(user)) == []


def test_long_import_chains_and_cycles_are_decided(tmp_path: Path) -> None:
    # Deeper than the recursion limit allows, and a ring: every verdict still comes out.
    # Each member binds the next module whole (``from pkg import m1``), so the adapter's
    # names reach every member's namespace: the one that spells ``make_ext`` is handed a
    # stream, the one that spells none of them is not.
    root = tmp_path / "ring"
    (root / "pkg").mkdir(parents=True)
    _write(root / "pkg" / "__init__.py", "")
    size = 1500
    for n in range(size):
        _write(root / "pkg" / f"m{n}.py", f"from pkg import m{(n + 1) % size}\n")
    spells = root / "spells.py"
    _write(spells, "from pkg import m0\n\nmake = m0.m1.make_ext\n")
    silent = root / "pkg" / "m0.py"
    for path in (spells, silent):
        assert not should_analyse(path.read_text(), str(path))
    _write(root / "pkg" / "m700.py", "from pkg import adapter\n", tick=1)
    _write(root / "pkg" / "adapter.py", _ADAPTER)
    assert should_analyse(spells.read_text(), str(spells))
    assert not should_analyse(silent.read_text(), str(silent))


_RELAYS = {"plain": _RELAY_PLAIN, "external": _RELAY_EXT, "gone": None}
_ADAPTERS = {
    "external": _ADAPTER,
    "managed": "import torch\n\n\ndef make_ext(p):\n    return torch.npu.Stream()\n",
}


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(_RELAYS)), st.sampled_from(sorted(_ADAPTERS))),
        min_size=1,
        max_size=4,
    )
)
def test_cached_and_uncached_runs_agree_after_any_edits(
    tmp_path: Path, edits: list[tuple[str, str]]
) -> None:
    root = tmp_path / f"p{len(list(tmp_path.iterdir()))}"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    _write(root / "pkg" / "__init__.py", "")
    _write(root / "pkg" / "user.py", _USER)
    for tick, (relay, adapter) in enumerate(edits, 1):
        _write(root / "pkg" / "adapter.py", _ADAPTERS[adapter], tick)
        if _RELAYS[relay] is None:
            (root / "pkg" / "relay.py").unlink(missing_ok=True)
        else:
            _write(root / "pkg" / "relay.py", _RELAYS[relay], tick)
        sources._SHARED.pop(((), False), None)  # the reference starts from nothing
        projects._INDEXES.pop(((), False), None)
        uncached = _run(root, cache=False)
        assert _run(root) == uncached  # this process, cache kept in memory
        _new_process()
        assert _run(root) == uncached  # a new process over the disk cache


class _Planted:
    """A verdict table someone committed: unpickling it would run a command."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (self.command,))


def test_a_planted_verdict_table_runs_nothing(project: Path, tmp_path: Path) -> None:

    expected = _run(project)
    marker = tmp_path / "ran"
    tables = list((project / CACHE_DIR).rglob("imports-*.pickle"))
    assert tables
    for table in tables:
        table.write_bytes(pickle.dumps({"x": _Planted(f"touch {marker}")}))
        # even sealed with this user's key, the restricted unpickler refuses it
        sealed = table.with_name("sealed-" + table.name)
        sealed.write_bytes(
            sealing.seal(diskio._name(str(table)), pickle.dumps({"x": _Planted(f"touch {marker}")}))
        )
        os.replace(sealed, table)
    _new_process()
    assert _run(project) == expected
    assert not marker.exists()


def test_an_importer_that_spells_none_of_the_names_is_not_read_when_warm(project: Path) -> None:
    # ``silent`` imports the relay that hands out streams but uses none of its names: the
    # cold run reads it once for its words, which are kept; a warm run reads it not at all.
    _write(project / "pkg" / "relay.py", _RELAY_EXT)
    _write(project / "pkg" / "silent.py", "from pkg import relay\n\n\ndef f():\n    return relay\n")
    cold: list[str] = []
    assert _run(project, reads=cold) == {("user.py", 5)}
    assert cold.count("silent.py") == 1
    assert list((project / CACHE_DIR).rglob("spelled-*.pickle"))
    _new_process()
    warm: list[str] = []
    assert _run(project, reads=warm) == {("user.py", 5)}
    assert "silent.py" not in warm
    _write(project / "pkg" / "silent.py", "from pkg import relay\n\nx = relay.get(0)\n", tick=1)
    _new_process()
    edited: list[str] = []
    _run(project, reads=edited)
    assert edited.count("silent.py") == 1  # its words changed with it: read, and analysed


def test_the_facts_table_stores_a_path_that_many_files_import_once(tmp_path: Path) -> None:
    # Every importer of the hub links (and probes) the hub's path: stored once, not once
    # per importer, the table stays small and quick to load in every run.
    root = tmp_path / "hubbed"
    _write(root / "pkg" / "__init__.py", "")
    _write(root / "pkg" / "hub.py", "X = 1\n")
    for n in range(40):
        _write(root / "pkg" / f"m{n}.py", "from pkg.hub import X\n")
    (root / "pyproject.toml").write_text("[project]\nname = 'h'\n", encoding="utf-8")
    _run(root)
    (table_file,) = (root / CACHE_DIR).rglob("imports-*.pickle")
    table = diskio.load(str(table_file))
    hub = str(root / "pkg" / "hub.py")
    held = [link for facts in table.values() for link in facts[3] if link == hub]
    assert len(held) == 40
    assert all(link is held[0] for link in held)


def test_tables_are_named_by_their_configured_roots(tmp_path: Path) -> None:
    import hashlib

    # no roots configured: the digest of nothing, written out so hashlib is not imported
    assert sources._roots_key(()) == hashlib.sha1(b"").hexdigest()[:16]
    one, other = sources._roots_key((str(tmp_path / "a"),)), sources._roots_key(("b",))
    assert len({sources._roots_key(()), one, other}) == 3
