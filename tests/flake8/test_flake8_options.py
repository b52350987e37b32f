"""flake8's own machinery applied to EXS codes: selection, ``# noqa``, stdin, jobs, exit codes.

These go through a real ``python -m flake8`` subprocess because selection and ``# noqa``
are flake8's job, not the plugin's: the only way to know they work is to let flake8 do them.
"""

from __future__ import annotations

import pytest
from exs_flake8_support import CLEAN_USE, MISUSE


def test_plugin_is_registered_under_its_entry_point(flake8) -> None:
    run = flake8("--version")
    assert run.returncode == 0, run.describe()
    assert "extstream: " in run.stdout, run.describe()


def test_default_selection_reports_exs101_at_flake8_column_1(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("bad.py")
    run.assert_flake8_went_on()
    assert run.returncode == 1
    assert run.at("bad.py") == [(3, 1, "EXS101")], run.describe()
    # the other plugins still run: ``handle`` is undefined
    assert run.at("bad.py", "F821"), run.describe()


def test_message_starts_with_code_and_says_why(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=EXS", "bad.py")
    (violation,) = run.violations
    assert violation.code == "EXS101"
    assert "synchronize" in violation.text, run.describe()


def test_select_exs_shows_only_exs(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=EXS", "bad.py")
    assert run.returncode == 1, run.describe()
    assert [v.code for v in run.violations] == ["EXS101"], run.describe()


def test_select_e_also_selects_exs_because_flake8_matches_prefixes(flake8, write) -> None:
    # flake8 selects by string prefix: "EXS101".startswith("E"). Users who write
    # ``select = E,F,W`` therefore keep seeing EXS findings (and ``ignore = E`` hides them).
    write("bad.py", MISUSE)
    assert flake8("--select=E,F,W", "bad.py").at("bad.py") == [(3, 1, "EXS101")]


def test_select_exact_code(flake8, write) -> None:
    write("bad.py", MISUSE)
    assert flake8("--select=EXS101", "bad.py").at("bad.py") == [(3, 1, "EXS101")]


def test_deselected_exs_is_not_reported(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=F,W,C90", "bad.py")
    run.assert_flake8_went_on()
    assert run.at("bad.py") == [], run.describe()
    assert run.at("bad.py", "F821"), run.describe()


def test_extend_select_adds_exs_to_a_narrow_selection(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=F", "--extend-select=EXS101", "bad.py")
    assert run.at("bad.py") == [(3, 1, "EXS101")], run.describe()
    assert run.at("bad.py", "F821"), run.describe()


@pytest.mark.parametrize("option", ["--ignore=EXS101", "--extend-ignore=EXS", "--ignore=EXS1"])
def test_ignored_code_is_not_reported(flake8, write, option: str) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=EXS,F", option, "bad.py")
    run.assert_flake8_went_on()
    assert run.at("bad.py") == [], run.describe()


def test_per_file_ignores(flake8, write) -> None:
    write("bad.py", MISUSE)
    write("other.py", MISUSE)
    run = flake8("--select=EXS", "--per-file-ignores=bad.py:EXS101", "bad.py", "other.py")
    assert run.at("bad.py") == [], run.describe()
    assert run.at("other.py") == [(3, 1, "EXS101")], run.describe()


@pytest.mark.parametrize(
    "comment",
    ["# noqa", "# noqa: EXS101", "# NOQA:EXS101", "# noqa: E501,EXS101", "# noqa: EXS"],
)
def test_noqa_silences(flake8, write, comment: str) -> None:
    write("bad.py", MISUSE.replace("ext.synchronize()", f"ext.synchronize()  {comment}"))
    run = flake8("--select=EXS", "bad.py")
    assert run.returncode == 0, run.describe()
    assert run.violations == [], run.describe()


@pytest.mark.parametrize("comment", ["# noqa: E501", "# noqa: EXS102", "# noqa: F821"])
def test_noqa_for_another_code_does_not_silence(flake8, write, comment: str) -> None:
    write("bad.py", MISUSE.replace("ext.synchronize()", f"ext.synchronize()  {comment}"))
    run = flake8("--select=EXS", "bad.py")
    assert run.at("bad.py") == [(3, 1, "EXS101")], run.describe()


def test_noqa_on_another_line_does_not_silence(flake8, write) -> None:
    source = MISUSE.replace("ExternalStream(handle)", "ExternalStream(handle)  # noqa: EXS101")
    write("bad.py", source)
    assert flake8("--select=EXS", "bad.py").at("bad.py") == [(3, 1, "EXS101")]


def test_disable_noqa_reports_anyway(flake8, write) -> None:
    write("bad.py", MISUSE.replace("ext.synchronize()", "ext.synchronize()  # noqa: EXS101"))
    run = flake8("--select=EXS", "--disable-noqa", "bad.py")
    assert run.at("bad.py") == [(3, 1, "EXS101")], run.describe()


def test_exit_code_zero_on_clean_external_stream_use(flake8, write) -> None:
    write("ok.py", CLEAN_USE)
    run = flake8("--select=EXS", "ok.py")
    assert run.returncode == 0, run.describe()
    assert run.violations == []


def test_exit_zero_option_keeps_output(flake8, write) -> None:
    write("bad.py", MISUSE)
    run = flake8("--select=EXS", "--exit-zero", "bad.py")
    assert run.returncode == 0, run.describe()
    assert run.at("bad.py") == [(3, 1, "EXS101")], run.describe()


def test_stdin_with_display_name(flake8) -> None:
    run = flake8("--select=EXS", "--stdin-display-name=pipe/mod.py", "-", stdin=MISUSE)
    run.assert_flake8_went_on()
    assert [(v.path, v.line, v.col, v.code) for v in run.violations] == [
        ("pipe/mod.py", 3, 1, "EXS101")
    ], run.describe()


def test_stdin_honours_noqa(flake8) -> None:
    source = MISUSE.replace("ext.synchronize()", "ext.synchronize()  # noqa: EXS101")
    run = flake8("--select=EXS", "--stdin-display-name=mod.py", "-", stdin=source)
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
    run = flake8("--select=EXS", "--stdin-display-name=mod.py", "-", stdin=data)
    run.assert_flake8_went_on()
    expected_line = 3 if data.startswith(b"\xef") else 5
    assert run.at("mod.py") == [(expected_line, 1, "EXS101")], run.describe()


def test_stdin_is_read_not_a_file_of_the_display_name(flake8, write) -> None:
    # A file of the display name exists with clean content: the plugin must analyse stdin.
    write("mod.py", CLEAN_USE)
    run = flake8("--select=EXS", "--stdin-display-name=mod.py", "-", stdin=MISUSE)
    assert run.at("mod.py") == [(3, 1, "EXS101")], run.describe()


def test_two_jobs_over_many_files(flake8, write) -> None:
    bad = [f"pkg/bad_{i}.py" for i in range(6)]
    for name in bad:
        write(name, MISUSE)
    for i in range(6):
        write(f"pkg/ok_{i}.py", CLEAN_USE)
        write(f"pkg/plain_{i}.py", "import os\nprint(os.sep)\n")
    run = flake8("-j2", "--select=EXS", "pkg")
    run.assert_flake8_went_on()
    reported = sorted((v.path.replace("\\", "/"), v.line, v.col, v.code) for v in run.violations)
    assert reported == sorted((name, 3, 1, "EXS101") for name in bad), run.describe()


def test_two_jobs_match_one_job(flake8, write) -> None:
    for i in range(4):
        write(f"m{i}.py", MISUSE + "\n" * i + "ext.query()\n")
    one = flake8("-j1", "--select=EXS", ".")
    two = flake8("-j2", "--select=EXS", ".")
    assert one.violations, one.describe()
    assert sorted(one.violations, key=repr) == sorted(two.violations, key=repr)
