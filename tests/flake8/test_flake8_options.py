"""flake8's own machinery applied to XST codes: selection, ``# noqa``, stdin, jobs, exit codes.

These go through a real ``python -m flake8`` subprocess because selection and ``# noqa``
are flake8's job, not the plugin's: the only way to know they work is to let flake8 do them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from xst_flake8_support import CLEAN_USE, MISUSE


def test_plugin_is_registered_under_its_entry_point(flake8) -> None:
    run = flake8("--version")
    assert run.returncode == 0, run.describe()
    assert "extstream: " in run.stdout, run.describe()


def test_default_selection_reports_xst101_at_flake8_column_1(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("bad.py")
    run.assert_flake8_went_on()
    assert run.returncode == 1
    assert run.at("bad.py") == [(3, 1, "XST101")], run.describe()
    # the other plugins still run: ``handle`` is undefined
    assert run.at("bad.py", "F821"), run.describe()


def test_message_starts_with_code_and_says_why(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=XST", "bad.py")
    (violation,) = run.violations
    assert violation.code == "XST101"
    assert "synchronize" in violation.text, run.describe()


def test_select_xst_shows_only_xst(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=XST", "bad.py")
    assert run.returncode == 1, run.describe()
    assert [v.code for v in run.violations] == ["XST101"], run.describe()


def test_extend_ignore_of_pycodestyle_keeps_every_finding(flake8, write) -> None:
    # flake8 matches codes by prefix: a prefix starting with E or W would be hidden by the
    # common ``extend-ignore = E,W``. XST is nobody else's prefix, so it survives.
    write("bad.py", MISUSE)
    run = flake8("--extend-ignore=E,W", "bad.py")
    assert run.at("bad.py") == [(3, 1, "XST101")], run.describe()


#: Selections a user writes in a shared flake8 configuration; the CLI must agree with flake8
#: on those of XST codes, and refuses another tool's prefix (it would select nothing).
AGREEMENT_CASES = [
    (),
    ("--select=XST",),
    ("--select=E,W,F",),
    ("--extend-ignore=E,W",),
    ("--select=E,W,F,XST",),
    ("--select=XST1", "--ignore=XST101"),
    ("--select=XST101",),
    ("--select=X",),
    ("--ignore=XST",),
    ("--select=F", "--extend-select=XST101"),
    ("--select=XST", "--extend-ignore=XST101"),
]


@pytest.mark.parametrize("options", AGREEMENT_CASES, ids=lambda o: " ".join(o) or "default")
def test_cli_and_flake8_agree_on_selection(flake8, write, tmp_path, options) -> None:
    write("bad.py", MISUSE + "ext.query()\n")
    violations = flake8(*options, "bad.py").violations
    expected = sorted((v.line, v.code) for v in violations if v.code.startswith("XST"))
    run = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", "--format=json",
         *options, "bad.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if _foreign(options):
        _assert_refused(run, options)
        return
    assert run.returncode in (0, 1), run.stderr
    actual = sorted((f["line"], f["code"]) for f in json.loads(run.stdout)["findings"])
    assert actual == expected, (options, run.stdout)


def _foreign(options: tuple[str, ...]) -> list[str]:
    """The prefixes of ``options`` that match no XST code (another tool's)."""
    return [
        code
        for option in options
        for code in option.split("=", 1)[1].split(",")
        if not ("XST".startswith(code) or code.startswith("XST"))
    ]


def _assert_refused(run: subprocess.CompletedProcess[str], options: tuple[str, ...]) -> None:
    """The CLI reads only extstream's settings: another tool's prefix selects nothing there,
    so it is an error (one line, exit 2), not a run that silently checks nothing."""
    assert run.returncode == 2, (options, run.stdout, run.stderr)
    assert run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert f"'{_foreign(options)[0]}' matches no extstream code" in line


#: XST201 (on by default) and XST211 (opt-in, off by default) on lines 5 and 6.
OPT_IN = (
    "import torch\n"
    "ext = torch.npu.ExternalStream(handle)\n"
    "with torch.npu.stream(ext):\n"
    '    out = torch.ones(4, device="npu")\n'
    '    out.to("cpu", non_blocking=True)\n'
    '    incoming.to("npu", non_blocking=True)\n'
)

#: How users turn the opt-in codes on and off; flake8's extend-default-ignore rules, which
#: the CLI re-states (an explicit ``ignore`` replaces the default list, as for E121...).
OPT_IN_CASES = [
    ((), [(5, "XST201")]),
    (("--extend-select=XST211",), [(5, "XST201"), (6, "XST211")]),
    (("--select=XST",), [(5, "XST201"), (6, "XST211")]),
    (("--select=XST2",), [(5, "XST201"), (6, "XST211")]),
    (("--select=XST201",), [(5, "XST201")]),
    (("--extend-ignore=E,W",), [(5, "XST201")]),
    (("--ignore=E501",), [(5, "XST201"), (6, "XST211")]),
    (("--extend-select=XST211", "--extend-ignore=XST2"), []),
    (("--select=XST", "--ignore=XST21"), [(5, "XST201")]),
]


@pytest.mark.parametrize(
    ("options", "want"), OPT_IN_CASES, ids=lambda o: " ".join(o) if isinstance(o, tuple) else ""
)
def test_opt_in_codes_are_off_unless_selected_in_flake8_and_cli(
    flake8, write, tmp_path, options, want
) -> None:
    write("bad.py", OPT_IN)
    run = flake8(*options, "bad.py")
    assert sorted((v.line, v.code) for v in run.violations if v.code.startswith("XST")) == want, (
        run.describe()
    )
    cli = subprocess.run(
        [sys.executable, "-m", "extstream_lint", "--isolated", "--format=json",
         *options, "bad.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if _foreign(options):
        _assert_refused(cli, options)
        return
    assert cli.returncode in (0, 1), cli.stderr
    assert sorted((f["line"], f["code"]) for f in json.loads(cli.stdout)["findings"]) == want


def test_select_exact_code(flake8, write) -> None:
    write("bad.py", MISUSE)
    assert flake8("--select=XST101", "bad.py").at("bad.py") == [(3, 1, "XST101")]


@pytest.mark.parametrize("selection", ["--select=E,W,F", "--select=F,W,C90"])
def test_other_tools_selection_shows_none_of_ours(flake8, write, selection: str) -> None:
    write("bad.py", MISUSE)
    run = flake8(selection, "bad.py")
    run.assert_flake8_went_on()
    assert run.at("bad.py") == [], run.describe()
    assert run.at("bad.py", "F821"), run.describe()


def test_extend_select_adds_xst_to_a_narrow_selection(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=F", "--extend-select=XST101", "bad.py")
    assert run.at("bad.py") == [(3, 1, "XST101")], run.describe()
    assert run.at("bad.py", "F821"), run.describe()


@pytest.mark.parametrize("option", ["--ignore=XST101", "--extend-ignore=XST", "--ignore=XST1"])
def test_ignored_code_is_not_reported(flake8, write, option: str) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=XST,F", option, "bad.py")
    run.assert_flake8_went_on()
    assert run.at("bad.py") == [], run.describe()


def test_per_file_ignores(flake8, write) -> None:
    write("bad.py", MISUSE)
    write("other.py", MISUSE)
    run = flake8("--select=XST", "--per-file-ignores=bad.py:XST101", "bad.py", "other.py")
    assert run.at("bad.py") == [], run.describe()
    assert run.at("other.py") == [(3, 1, "XST101")], run.describe()


@pytest.mark.parametrize(
    "comment",
    ["# noqa", "# noqa: XST101", "# NOQA:XST101", "# noqa: E501,XST101", "# noqa: XST"],
)
def test_noqa_silences(flake8, write, comment: str) -> None:
    write("bad.py", MISUSE.replace("ext.synchronize()", f"ext.synchronize()  {comment}"))
    run = flake8("--select=XST", "bad.py")
    assert run.returncode == 0, run.describe()
    assert run.violations == [], run.describe()


@pytest.mark.parametrize("comment", ["# noqa: E501", "# noqa: XST102", "# noqa: F821"])
def test_noqa_for_another_code_does_not_silence(flake8, write, comment: str) -> None:
    write("bad.py", MISUSE.replace("ext.synchronize()", f"ext.synchronize()  {comment}"))
    run = flake8("--select=XST", "bad.py")
    assert run.at("bad.py") == [(3, 1, "XST101")], run.describe()


def test_noqa_on_another_line_does_not_silence(flake8, write) -> None:
    source = MISUSE.replace("ExternalStream(handle)", "ExternalStream(handle)  # noqa: XST101")
    write("bad.py", source)
    assert flake8("--select=XST", "bad.py").at("bad.py") == [(3, 1, "XST101")]


def test_disable_noqa_reports_anyway(flake8, write) -> None:
    write("bad.py", MISUSE.replace("ext.synchronize()", "ext.synchronize()  # noqa: XST101"))
    run = flake8("--select=XST", "--disable-noqa", "bad.py")
    assert run.at("bad.py") == [(3, 1, "XST101")], run.describe()


def test_exit_code_zero_on_clean_external_stream_use(flake8, write) -> None:
    write("ok.py", CLEAN_USE)
    run = flake8("--select=XST", "ok.py")
    assert run.returncode == 0, run.describe()
    assert run.violations == []


def test_exit_zero_option_keeps_output(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=XST", "--exit-zero", "bad.py")
    assert run.returncode == 0, run.describe()
    assert run.at("bad.py") == [(3, 1, "XST101")], run.describe()


def test_stdin_with_display_name(flake8) -> None:
    run = flake8("--select=XST", "--stdin-display-name=pipe/mod.py", "-", stdin=MISUSE)
    run.assert_flake8_went_on()
    assert [(v.path, v.line, v.col, v.code) for v in run.violations] == [
        ("pipe/mod.py", 3, 1, "XST101")
    ], run.describe()


def test_stdin_honours_noqa(flake8) -> None:
    source = MISUSE.replace("ext.synchronize()", "ext.synchronize()  # noqa: XST101")
    run = flake8("--select=XST", "--stdin-display-name=mod.py", "-", stdin=source)
    assert run.returncode == 0, run.describe()
    assert run.violations == []


@pytest.mark.parametrize(
    "data",
    [
        b"\xef\xbb\xbf" + MISUSE.encode(),
        ("# -*- coding: latin-1 -*-\n# café\n" + MISUSE).encode("latin-1"),
    ],
    ids=["bom", "latin1"],
)
def test_stdin_bytes_are_decoded_like_files(flake8, data: bytes) -> None:
    run = flake8("--select=XST", "--stdin-display-name=mod.py", "-", stdin=data)
    run.assert_flake8_went_on()
    expected_line = 3 if data.startswith(b"\xef") else 5
    assert run.at("mod.py") == [(expected_line, 1, "XST101")], run.describe()


def test_stdin_is_read_not_a_file_of_the_display_name(flake8, write) -> None:
    # A file of the display name exists with clean content: the plugin must analyse stdin.
    write("mod.py", CLEAN_USE)
    run = flake8("--select=XST", "--stdin-display-name=mod.py", "-", stdin=MISUSE)
    assert run.at("mod.py") == [(3, 1, "XST101")], run.describe()


def test_two_jobs_over_many_files(flake8, write) -> None:
    bad = [f"pkg/bad_{i}.py" for i in range(6)]
    for name in bad:
        write(name, MISUSE)
    for i in range(6):
        write(f"pkg/ok_{i}.py", CLEAN_USE)
        write(f"pkg/plain_{i}.py", "import os\nprint(os.sep)\n")
    run = flake8("-j2", "--select=XST", "pkg")
    run.assert_flake8_went_on()
    reported = sorted((v.path.replace("\\", "/"), v.line, v.col, v.code) for v in run.violations)
    assert reported == sorted((name, 3, 1, "XST101") for name in bad), run.describe()


def test_two_jobs_match_one_job(flake8, write) -> None:
    for i in range(4):
        write(f"m{i}.py", MISUSE + "\n" * i + "ext.query()\n")
    one = flake8("-j1", "--select=XST", ".")
    two = flake8("-j2", "--select=XST", ".")
    assert one.violations, one.describe()
    assert sorted(one.violations, key=repr) == sorted(two.violations, key=repr)


def _xst_codes_by_file(tmp_path, *files: str) -> dict[str, set[str]]:
    """flake8 run as a user runs it (no ``--isolated``: the ``.flake8`` in ``tmp_path`` is its
    configuration); the XST codes reported, per file."""
    run = subprocess.run(
        [sys.executable, "-m", "flake8", "--config", ".flake8", *files],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode in (0, 1), run.stderr
    found: dict[str, set[str]] = {}
    for line in run.stdout.splitlines():
        path, _line, _col, rest = line.split(":", 3)
        code = rest.split()[0]
        if code.startswith("XST"):
            found.setdefault(path, set()).add(code)
    return found


def test_the_readme_flake8_block_keeps_the_off_by_default_codes_off(tmp_path, write) -> None:
    """The README's flake8 configuration, as written (issue 41, item 2): ``extend-select =
    XST`` turns every XST code on, its ``extend-ignore`` turns the off-by-default ones off
    again, and its ``per-file-ignores`` silences XST1 under ``tests/``. Each rule's own
    example is the file that would show it."""
    from pathlib import Path

    from extstream_lint.contract import DEFAULT_IGNORE, RULES

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### flake8") :]
    block = section[section.index("```ini\n") + len("```ini\n") :]
    config = block[: block.index("```")]
    write(".flake8", config)
    assert DEFAULT_IGNORE, "no off-by-default code left to check"
    shown = ["XST101", *sorted(DEFAULT_IGNORE)]
    files = [f"{code.lower()}.py" for code in shown]
    for code, name in zip(shown, files):
        write(name, RULES[code].example)
    write("tests/test_sync.py", RULES["XST101"].example)
    assert _xst_codes_by_file(tmp_path, *files, "tests/test_sync.py") == {"xst101.py": {"XST101"}}
    # without the extend-ignore line, the explicit XST prefix shows the opt-in codes: the
    # line the README adds is what keeps them off
    write(".flake8", config.replace("extend-ignore", "# extend-ignore"))
    shown_then = _xst_codes_by_file(tmp_path, *files)
    for code in DEFAULT_IGNORE:
        assert code in shown_then.get(f"{code.lower()}.py", set()), shown_then
