"""The census (:mod:`extstream_lint.project.census`): the pre-filter's "no" without the graph.

Where no Python file under a file's import roots mentions an external stream, no import can
hand it one. The census must give exactly the verdicts the import graph gives, see every
file an import can reach (configured roots too), new files and edits included, and cost a
listing and a stat per file on a warm run.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extstream_lint.project import census, graph, modules, sources
from extstream_lint.project.markers import might_use_external_streams
from extstream_lint.project.prefilter import should_analyse

_ADAPTER = "import torch_npu\n\n\ndef make(p):\n    return torch_npu.npu.ExternalStream(p)\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _touch_later(path: Path, seconds: int = 5) -> None:
    """mtime granularity must not hide an edit: move it explicitly."""
    stamp = os.stat(path).st_mtime_ns + seconds * 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def _verdict(path: Path, src: tuple[str, ...] = (), cache: bool = False) -> bool:
    with modules.one_run():
        return should_analyse(path.read_text(encoding="utf-8"), str(path), src, cache)


# --- bytes: the same answer as the facts ---------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        "ExternalStream",
        "stream_ptr",
        "torch_npu",
        "torch.npu",
        "input",
        "npu",
        "External",
        "Stream",
        " ",
        "\n",
        "\r\n",
        "\r",
        "é",
        "# -*- coding: latin-1 -*-\n",
        "# vim: set fileencoding=utf-8 :\n",
        "x = 1\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=12), st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
def test_a_files_bytes_answer_as_its_facts_would(fragments: list[str], encoding: str) -> None:
    text = "".join(fragments)
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return
    try:
        expected = might_use_external_streams(sources.decode(data))
    except (SyntaxError, UnicodeDecodeError, LookupError):
        expected = False  # no facts for a file that cannot be decoded: it hands out nothing
    assert sources.mentions_external(data) == expected


def test_a_cookie_on_the_second_line_is_read() -> None:
    # cp037 is EBCDIC: the markers are other bytes; only the cookie says how to read them
    head = "#!/usr/bin/env python\n# coding: cp037\n"
    data = head.encode("ascii") + "import torch_npu\ntorch_npu.npu.ExternalStream\n".encode("cp037")
    assert b"ExternalStream" not in data
    assert sources.mentions_external(data)


# --- the census agrees with the import graph -----------------------------------------------


def _random_project(root: Path, rng: random.Random) -> list[Path]:
    """A package with import cycles and a hub, maybe an adapter somewhere, maybe used."""
    size = rng.randint(3, 12)
    files = {"pkg/__init__.py": "", "pkg/sub/__init__.py": ""}
    names = [f"pkg/m{n}.py" if n % 3 else f"pkg/sub/m{n}.py" for n in range(size)]
    dotted = [name[:-3].replace("/", ".") for name in names]
    adapter = rng.choice([None, *range(size)])
    for n, name in enumerate(names):
        imports = rng.sample(range(size), k=min(size, rng.randint(0, 3)))
        lines = [f"import {dotted[i]}" for i in imports if i != n]
        if n == adapter:
            lines.append(_ADAPTER)
        elif adapter is not None and rng.random() < 0.5:
            lines.append(f"from {dotted[adapter]} import make\nuse = make")
        files[name] = "\n".join(lines) + "\nx = 1\n"
    _write(root, files)
    return [root / name for name in names]


@pytest.mark.parametrize("seed", range(30))  # 99 of their 224 verdicts are "yes"
def test_the_census_gives_the_graphs_verdicts(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _random_project(tmp_path, random.Random(seed))
    with_census = [_verdict(path) for path in paths]
    monkeypatch.setattr(graph, "others_mention", lambda *args: True)
    assert with_census == [_verdict(path) for path in paths]


def test_a_configured_root_is_listed(tmp_path: Path) -> None:
    _write(tmp_path, {"lib/adapter.py": _ADAPTER, "app/main.py": "from adapter import make\n"})
    assert _verdict(tmp_path / "app" / "main.py", (str(tmp_path / "lib"),))
    assert not _verdict(tmp_path / "app" / "main.py")  # without it, nothing is importable


# --- warm runs: new files and edits are seen; nothing else is read -------------------------


@pytest.fixture
def silent_project(tmp_path: Path) -> Path:
    """A project where no file mentions an external stream; ``pkg.user`` imports all."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    files = {"pkg/__init__.py": "", "pkg/sub/__init__.py": ""}
    for n in range(8):
        files[f"pkg/sub/m{n}.py"] = f"import pkg.sub.m{(n + 1) % 8}\nx = {n}\n"
    files["pkg/user.py"] = (
        "from pkg.sub import m0\nfrom pkg import helpers\n\n\n"
        "def run():\n    return m0.pkg.sub.m5.make(0), helpers.stream\n"
    )
    _write(tmp_path, files)
    _age(tmp_path)
    return tmp_path


def _age(root: Path, seconds: int = 60) -> None:
    """Written a minute ago: a file written just before a run is "racily clean" (its mtime
    is not older than the run), and such a file is read again until it is not."""
    for path in root.rglob("*.py"):
        info = os.stat(path)
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - seconds * 1_000_000_000))


def _new_process() -> None:
    """Forget what this process learnt, as a new flake8 process would."""
    for key in [k for k in sources._SHARED if k[1]]:
        del sources._SHARED[key]


def _opened_by(path: Path) -> tuple[bool, list[str]]:
    _new_process()
    before = sources.OPENS.copy()
    verdict = _verdict(path, cache=True)
    for facts in sources._SHARED.values():
        facts.save()
    opened = sources.OPENS - before
    assert not opened or max(opened.values()) == 1, opened
    return verdict, sorted(os.path.basename(p) for p in opened)


def test_a_warm_run_reads_no_file(silent_project: Path) -> None:
    user = silent_project / "pkg" / "user.py"
    verdict, cold = _opened_by(user)
    assert not verdict
    assert len(cold) == 11  # every file once: the census reads them all
    assert list(silent_project.rglob("census-*.pickle"))
    assert _opened_by(user) == (False, [])


def test_a_new_module_that_mentions_one_is_seen(silent_project: Path) -> None:
    user = silent_project / "pkg" / "user.py"
    assert not _opened_by(user)[0]
    helpers = "from pkg.adapters.npu import make\n\nstream = make(0)\n"
    _write(silent_project, {"pkg/helpers.py": helpers, "pkg/adapters/__init__.py": ""})
    _write(silent_project, {"pkg/adapters/npu.py": _ADAPTER})  # a new directory
    assert _opened_by(user)[0]


def test_an_edit_is_read_and_nothing_else(silent_project: Path) -> None:
    user = silent_project / "pkg" / "user.py"
    _opened_by(user)
    edited = silent_project / "pkg" / "sub" / "m5.py"
    edited.write_text(_ADAPTER + "import pkg.sub.m6\n", encoding="utf-8")
    _touch_later(edited)
    verdict, opened = _opened_by(user)
    assert verdict  # user -> m0 -> ... -> m5, which now makes one
    assert "m5.py" in opened
    edited.write_text("import pkg.sub.m6\nx = 5\n", encoding="utf-8")
    _touch_later(edited, 10)
    assert _opened_by(user) == (False, ["m5.py"])


# --- bounded cost --------------------------------------------------------------------------


def test_beyond_its_limits_the_census_lets_the_graph_answer(
    silent_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(census, "MAX_DIRECTORIES", 1)
    assert census.python_files((str(silent_project),)) is None
    with modules.one_run():
        facts = sources.source_facts()
        start = str(silent_project / "pkg" / "user.py")
        assert census.others_mention((str(silent_project),), start, facts)
    assert not _verdict(silent_project / "pkg" / "user.py")  # the graph's "no"


def test_a_directory_reached_again_through_a_link_is_listed_once(silent_project: Path) -> None:
    (silent_project / "pkg" / "sub" / "up").symlink_to(silent_project / "pkg")
    listing = census.python_files((str(silent_project),))
    assert listing is not None
    assert len(listing) == 11  # each file once, by its own path


def test_directories_no_import_can_name_are_not_entered(silent_project: Path) -> None:
    _write(silent_project, {".venv/lib/x.py": _ADAPTER, "site-packages/y.py": _ADAPTER})
    listing = census.python_files((str(silent_project),))
    assert listing is not None
    assert not any(".venv" in path or "site-packages" in path for path in listing)
    assert not _verdict(silent_project / "pkg" / "user.py")


# --- every file an import can reach is listed (found in review) ----------------------------


def test_a_link_to_a_directory_above_the_root_is_followed(tmp_path: Path) -> None:
    # src/pkg/up -> the project root: ``pkg.up.tools.streams`` resolves through it
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    _write(tmp_path, {"src/pkg/__init__.py": "", "tools/streams.py": _ADAPTER})
    (tmp_path / "src" / "pkg" / "up").symlink_to(tmp_path)
    _write(tmp_path, {"src/app.py": "from pkg.up.tools.streams import make\n\nmake(0)\n"})
    assert _verdict(tmp_path / "src" / "app.py")


def test_a_configured_root_that_is_a_package_with_an_unimportable_name(tmp_path: Path) -> None:
    # ``vendor-libs`` holds an __init__.py: its package root is above it, and no import
    # spells ``vendor-libs``; configured as a root, its modules import by their own names
    _write(tmp_path, {"vendor-libs/__init__.py": "", "vendor-libs/streams.py": _ADAPTER})
    _write(tmp_path, {"app/main.py": "from streams import make\n\nmake(0)\n"})
    assert _verdict(tmp_path / "app" / "main.py", (str(tmp_path / "vendor-libs"),))


def test_a_directory_that_cannot_be_listed_lets_the_graph_answer(
    silent_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # execute-only: resolution may still open a file in it by name
    hidden = str(silent_project / "pkg" / "sub")
    listing = os.scandir

    def refusing(path: str) -> object:
        if path == hidden:
            raise PermissionError(13, "Permission denied", path)
        return listing(path)

    monkeypatch.setattr(census.os, "scandir", refusing)
    assert census.python_files((str(silent_project),)) is None


def test_a_listing_that_gave_up_is_not_made_again_in_the_run(
    silent_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(census, "MAX_DIRECTORIES", 1)
    calls = []
    listing = census.python_files
    monkeypatch.setattr(census, "python_files", lambda roots: calls.append(roots) or listing(roots))
    with modules.one_run():
        facts = sources.source_facts()
        for name in ("user.py", "sub/m1.py", "sub/m2.py"):
            start = str(silent_project / "pkg" / name)
            assert census.others_mention(facts.roots(start), start, facts)
    assert len(calls) == 1


def test_a_file_that_could_not_be_read_is_read_next_time(
    silent_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    adapter = silent_project / "pkg" / "adapter.py"
    adapter.write_text(_ADAPTER, encoding="utf-8")
    _write(silent_project, {"pkg/helpers.py": "from pkg.adapter import make\n\nstream = make(0)\n"})
    user = silent_project / "pkg" / "user.py"
    reader = sources.read_project_file

    def unreadable(path: str) -> bytes:
        if path == str(adapter):
            raise PermissionError(13, "Permission denied", path)
        return reader(path)

    monkeypatch.setattr(sources, "read_project_file", unreadable)
    assert not _opened_by(user)[0]  # as the graph says: a file it cannot read hands nothing
    monkeypatch.setattr(sources, "read_project_file", reader)  # a chmod keeps the stamp
    assert _opened_by(user)[0]


def test_only_regular_files_are_read(silent_project: Path) -> None:
    os.mkfifo(silent_project / "pkg" / "pipe.py")  # opening it would wait for a writer
    listing = census.python_files((str(silent_project),))
    assert listing is not None and len(listing) == 11
    assert not _verdict(silent_project / "pkg" / "user.py")


# --- reading: every byte, whatever the stamp said --------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 4096, 200_000])
def test_a_file_is_read_whole(tmp_path: Path, size: int) -> None:
    path = tmp_path / "m.py"
    data = bytes(random.Random(size).randrange(256) for _ in range(size))
    path.write_bytes(data)
    with modules.one_run():
        assert sources.read_project_file(str(path)) == data


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_a_file_longer_than_its_stamp_is_read_whole() -> None:
    """A file that grew after its size was asked (here one whose stat says 0 bytes, as
    /proc's files do) is read to its end, not to the size the stat gave."""
    assert os.stat("/proc/self/cmdline").st_size == 0
    with open("/proc/self/cmdline", "rb") as handle:
        expected = handle.read()
    with modules.one_run():
        assert sources.read_project_file("/proc/self/cmdline") == expected


def test_a_directory_is_an_os_error_remembered(tmp_path: Path) -> None:
    (tmp_path / "d.py").mkdir()
    with modules.one_run():
        for _ in range(2):
            with pytest.raises(OSError):
                sources.read_project_file(str(tmp_path / "d.py"))
    assert sources.OPENS[str(tmp_path / "d.py")] == 1
