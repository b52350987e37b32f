"""How ``--fix`` writes (issue 43, item 3): never half a file, never outside the tree.

The fixed bytes go to a temporary file beside the file, which is renamed over it: a full
disk, a quota or a kill leaves the old file or the new one. A symbolic link whose target
lies outside the paths linted is not written through; a file with several hard links is
not split from them; a fix whose result does not parse is never written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from extstream_lint.frontends import fixes
from extstream_lint.frontends.cli import main
from extstream_lint.frontends.fixes import Edit, Fix, still_parses

HEAD = "import torch\n\next = torch.npu.ExternalStream(handle)\n"
#: XST101's unsafe fix makes the file longer: ext.synchronize() -> torch.npu.synchronize()
BODY = HEAD + "ext.synchronize()\n" + "".join(f"# line {i}\n" for i in range(200))
FIXED = HEAD + "torch.npu.synchronize()\n" + "".join(f"# line {i}\n" for i in range(200))

_UNDER_QUOTA = r"""
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the quota fails with EFBIG
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
from extstream_lint.frontends.cli import main
sys.exit(main(["--no-cache", "--unsafe-fixes", "--fix", "m.py"]))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="RLIMIT_FSIZE is POSIX")
def test_a_fix_that_runs_out_of_space_leaves_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(BODY)
    proc = subprocess.run(
        [sys.executable, "-c", _UNDER_QUOTA, str(len(BODY))],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert path.read_text() == BODY, "the file must be as it was, not cut"
    assert "cannot fix m.py" in proc.stderr, proc.stderr
    assert "(0 fixed, 1 remaining)" in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"], "no temporary file left"


def test_a_fix_keeps_the_mode_and_leaves_no_temporary_file(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = in_tmp / "m.py"
    path.write_text(BODY)
    os.chmod(path, 0o751)
    main(["--no-cache", "--unsafe-fixes", "--fix", "m.py"])
    assert "(1 fixed, 0 remaining)" in capsys.readouterr().err
    assert path.read_text() == FIXED
    assert os.stat(path).st_mode & 0o7777 == 0o751
    assert sorted(p.name for p in in_tmp.iterdir()) == ["m.py"]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges there")
def test_a_link_to_a_file_outside_the_tree_is_not_written_through(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = in_tmp / "outside"
    outside.mkdir()
    target = outside / "m.py"
    target.write_text(BODY)
    tree = in_tmp / "tree"
    tree.mkdir()
    (tree / "m.py").symlink_to(target)
    (tree / "own.py").write_text(BODY)
    main(["--no-cache", "--unsafe-fixes", "--fix", "tree"])
    err = capsys.readouterr().err
    assert target.read_text() == BODY
    assert "not fixed, it is a link to a file outside the paths linted" in err, err
    assert (tree / "own.py").read_text() == FIXED, "the tree's own file is still fixed"
    assert (tree / "m.py").is_symlink()


@pytest.mark.skipif(sys.platform == "win32", reason="hard links behave alike, but keep it POSIX")
def test_a_file_with_hard_links_is_not_split_from_them(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = in_tmp / "m.py"
    path.write_text(BODY)
    os.link(path, in_tmp / "other.txt")
    main(["--no-cache", "--unsafe-fixes", "--fix", "m.py"])
    assert "hard links" in capsys.readouterr().err
    assert path.read_text() == BODY == (in_tmp / "other.txt").read_text()


@pytest.mark.skipif(sys.platform == "win32", reason="hard links behave alike, but keep it POSIX")
@pytest.mark.parametrize(
    ("flag", "words"), [("--fix", "not fixed, "), ("--add-noqa", "no noqa added to ")]
)
def test_a_refusal_names_a_path_with_braces_as_it_is(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], flag: str, words: str
) -> None:
    """The warning is a template filled with the path, never a template made of it: a file
    named ``{reason}.py`` or ``{0}.py`` is printed by name, not read as a placeholder."""
    for name in ("{reason}.py", "{0}.py"):
        path = in_tmp / name
        path.write_text(BODY)
        os.link(path, in_tmp / f"{name}.txt")
        main(["--no-cache", "--unsafe-fixes", flag, name])
        err = capsys.readouterr().err
        assert words in err and name in err, err
        assert path.read_text() == BODY


def test_a_fix_whose_result_does_not_parse_is_never_written(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rewriter with a bug (here: one that deletes the call's ``)``) is caught by the
    re-parse of the fixed text: no fix is offered, nothing is written."""

    def broken(call, context):  # type: ignore[no-untyped-def]
        (_, _), (line, column) = context.span(call)
        return Fix("broken", True, (Edit((line, column - 1), (line, column), ""),))

    monkeypatch.setitem(fixes._REWRITERS, "XST101", broken)  # type: ignore[index]
    path = in_tmp / "m.py"
    path.write_text(BODY)
    main(["--no-cache", "--unsafe-fixes", "--fix", "m.py"])
    assert path.read_text() == BODY
    assert "(0 fixed, 1 remaining)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("before", "after", "parses"),
    [
        ("f(a)\n", "f(a\n", False),
        ("f(a)\n", "f(b)\n", True),
        ("type X = int\nf(a)\n", "type X = int\nf(b)\n", True),  # newer syntax: libcst decides
        ("type X = int\nf(a)\n", "type X = int\nf(b\n", False),
    ],
)
def test_still_parses(before: str, after: str, parses: bool) -> None:
    assert still_parses(before, after) is parses
