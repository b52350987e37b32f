"""The command itself: discovery, reading, the pre-filter, exit codes, stdin, parallelism."""

from __future__ import annotations

import io
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from extstream_lint.frontends.cli import decode_source, main

HEADER = "from torch_npu.npu import ExternalStream\n"


def make_tree(root: Path) -> None:
    files = {
        "pkg/a.py": HEADER + "BAD_XST101()\n",
        "pkg/b.pyi": HEADER + "BAD_XST102()\n",
        "pkg/notes.txt": HEADER + "BAD_XST103()\n",
        "pkg/sub/c.py": HEADER + "BAD_XST104()\n",
        ".git/hooks/h.py": HEADER + "BAD_XST105()\n",
        "pkg/__pycache__/a.py": HEADER + "BAD_XST105()\n",
        ".tox/py/x.py": HEADER + "BAD_XST105()\n",
        "myenv/lib/site.py": HEADER + "BAD_XST105()\n",
        "myenv/pyvenv.cfg": "home = /usr/bin\n",
        "venv/y.py": HEADER + "BAD_XST105()\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_walks_py_and_pyi_skipping_vcs_caches_and_venvs(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    make_tree(in_tmp)
    assert main(["."]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "pkg/a.py:2:1: XST101 fake finding",
        "pkg/b.pyi:2:1: XST102 fake finding",
        "pkg/sub/c.py:2:1: XST104 fake finding",
    ]


def test_named_files_are_linted_whatever_their_location(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    make_tree(in_tmp)
    assert main(["venv/y.py", "pkg/a.py", "pkg/a.py"]) == 1
    assert capsys.readouterr().out.splitlines() == [  # sorted, each file once
        "pkg/a.py:2:1: XST101 fake finding",
        "venv/y.py:2:1: XST105 fake finding",
    ]


def test_files_failing_the_prefilter_are_never_analysed(
    in_tmp: Path, fake_analysis: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "plain.py").write_text("import torch\nBAD_XST101()\ns.synchronize()\n")
    (in_tmp / "ptr.py").write_text("torch.npu.Stream(stream_ptr=p)\nBAD_XST001()\n")
    (in_tmp / "bad_syntax.py").write_text("def (:\n")
    assert main(["-j", "1", "."]) == 1
    assert [name for name, _ in fake_analysis.calls] == ["ptr.py"]
    assert capsys.readouterr().out == "ptr.py:2:1: XST001 fake finding\n"


def test_clean_run_exits_zero_and_prints_nothing(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "m.py").write_text(HEADER + "ext = ExternalStream(h)\n")
    assert main(["m.py"]) == 0
    assert capsys.readouterr() == ("", "")


def test_exit_zero(in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "m.py").write_text(HEADER + "BAD_XST101()\n")
    assert main(["--exit-zero", "m.py"]) == 0
    assert "XST101" in capsys.readouterr().out


def test_unreadable_and_undecodable_files_are_reported_and_the_run_goes_on(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "good.py").write_text(HEADER + "BAD_XST101()\n")
    # not UTF-8 and no cookie, or an unknown codec: read as latin-1, as flake8 reads them
    (in_tmp / "latin.py").write_bytes(HEADER.encode() + b"x = '\xe9'; BAD_XST102()\n")
    (in_tmp / "cookie.py").write_bytes(b"# -*- coding: klingon -*-\n" + HEADER.encode())
    os.symlink(in_tmp / "nowhere.py", in_tmp / "dangling.py")
    assert main(["."]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("dangling.py:1:1: XST000 cannot read file: No such file")
    assert out[1] == "good.py:2:1: XST101 fake finding"
    assert out[2] == "latin.py:2:10: XST102 fake finding"
    assert len(out) == 3
    assert main(["--select", "XST000", "--ignore", "XST000", "."]) == 0


def test_decoding_honours_coding_cookie_bom_and_newlines() -> None:
    assert decode_source(b"# coding: latin-1\nx = '\xe9'\n") == "# coding: latin-1\nx = 'é'\n"
    assert decode_source(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"
    assert decode_source(b"x = '\xe9'\n") == "x = '\xe9'\n"  # flake8's latin-1 fallback


def test_analysis_sees_decoded_text_with_flake8_line_numbers(
    in_tmp: Path, fake_analysis: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    source = "# -*- coding: latin-1 -*-\r\n# npu ExternalStream \xe9\r\n\xe9 = BAD_XST101()\r\n"
    (in_tmp / "m.py").write_bytes(source.encode("latin-1"))
    assert main(["-j", "1", "m.py"]) == 1
    assert capsys.readouterr().out == "m.py:3:5: XST101 fake finding\n"
    ((_, seen),) = fake_analysis.calls
    assert seen == source.replace("\r\n", "\n")


def test_stdin_with_stdin_filename(
    in_tmp: Path,
    fake_analysis: object,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = (HEADER + "BAD_XST102()  # noqa: XST101\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["-", "--stdin-filename", "pkg/mod.py"]) == 1
    assert capsys.readouterr().out == "pkg/mod.py:2:1: XST102 fake finding\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["-"]) == 1
    assert capsys.readouterr().out == "stdin:2:1: XST102 fake finding\n"


def test_stdin_filename_honours_per_file_ignores(
    in_tmp: Path,
    fake_analysis: object,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (in_tmp / "pyproject.toml").write_text(
        '[tool.extstream-lint.per-file-ignores]\n"tests/*" = ["XST"]\n'
    )
    data = (HEADER + "BAD_XST102()\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["-", "--stdin-filename", "tests/t.py"]) == 0


def test_stdin_usage_errors(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-", "x.py"]) == 2
    assert main(["--stdin-filename", "a.py", "x.py"]) == 2
    assert "--stdin-filename needs '-'" in capsys.readouterr().err


def test_parallel_run_gives_the_serial_report(
    in_tmp: Path, fake_analysis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    for n in range(12):
        (in_tmp / f"m{n:02}.py").write_text(HEADER + f"{' ' * n}BAD_XST1{n:02}()\n" * 2)
    assert main(["-j", "1", "."]) == 1
    serial = capsys.readouterr().out
    assert main(["-j", "3", "."]) == 1
    assert capsys.readouterr().out == serial
    assert len(serial.splitlines()) == 24


def test_internal_error_exits_2(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import extstream_lint.frontends.cli as cli

    def explode(*args: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "iter_files", explode)
    assert main(["."]) == 2
    err = capsys.readouterr().err
    assert "internal error: RuntimeError('boom')" in err
    # says what a useful report contains, and promises no address
    assert "please report it with this message, the output of `extstream-lint --version`" in err


def test_analysis_exception_becomes_xst000_for_that_file(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from extstream_lint import analysis

    def explode(*args: object, **kwargs: object) -> object:
        raise ValueError("bad")

    monkeypatch.setattr(analysis, "analyze_source", explode)
    (in_tmp / "m.py").write_text(HEADER)
    assert main(["-j", "1", "m.py"]) == 1
    assert capsys.readouterr().out.startswith(
        "m.py:1:1: XST000 cannot analyse this file (internal error in the analysis"
    )


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "extstream_lint"],
        # the script installed with this interpreter, not whichever one PATH finds first
        [str(Path(sys.executable).with_name("extstream-lint"))],
    ],
    ids=["python -m", "console script"],
)
def test_entry_points_run(in_tmp: Path, command: list[str]) -> None:
    (in_tmp / "m.py").write_text("import torch\n")
    done = subprocess.run([*command, "m.py"], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    done = subprocess.run([*command, "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("extstream-lint ")
    # everything a bug report needs, in one line
    from importlib import metadata

    for name in ("libcst", "flake8"):
        assert f"{name} {metadata.version(name)}" in done.stdout, done.stdout
    assert platform.python_version() in done.stdout, done.stdout


def test_a_dead_worker_is_reported_per_file_and_the_run_ends_normally(
    in_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fork_workers: None,
) -> None:
    from extstream_lint import analysis

    def die(source: str, filename: str = "", tree: object = None, **kwargs: object) -> object:
        os._exit(3)  # what a segfault in a native parser looks like to the pool

    monkeypatch.setattr(analysis, "analyze_source", die)
    for name in ("a.py", "b.py"):
        (in_tmp / name).write_text(HEADER)
    assert main(["-j", "2", "."]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[0] for line in out] == ["a.py:1:1", "b.py:1:1"]
    assert all("XST000 cannot analyse this file (the analysis process died" in line for line in out)
