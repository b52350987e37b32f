"""Odd and hostile files through a real flake8: no crash, and flake8 goes on with the rest.

Each test lints the odd file together with an ordinary misuse file (``other.py``) and checks
that the other file's finding is still printed: a plugin that crashes aborts the whole flake8
run (TorchFix's trap), which these tests would see as a missing line and a traceback.
"""

from __future__ import annotations

import pytest
from xst_flake8_support import LIBCST_REJECTS, MISUSE

HEAD = "import torch\next = torch.npu.ExternalStream(handle)\n"
TAIL = "ext.synchronize()\n"


@pytest.fixture
def lint_with_other(flake8, write):
    """Lint ``name`` (with ``content``) and ``other.py``; check flake8 went on; return the run."""

    def _lint(name: str, content: str | bytes, *options: str):
        write("other.py", MISUSE)
        write(name, content)
        run = flake8("--select=XST,E9", *options, name, "other.py")
        run.assert_flake8_went_on()
        assert run.at("other.py") == [(3, 1, "XST101")], run.describe()
        return run

    return _lint


def test_syntax_error_file_gets_e999_and_no_plugin_crash(lint_with_other) -> None:
    run = lint_with_other("broken.py", HEAD + "def f(:\n" + TAIL)
    assert run.at("broken.py", "E999"), run.describe()
    # flake8 does not run AST plugins on a file it cannot parse: E999 is the one report, and
    # nothing asks the user to report a bug to extstream
    assert run.at("broken.py") == [], run.describe()
    assert [v.code for v in run.violations if v.path == "broken.py"] == ["E999"], run.describe()


def test_file_libcst_rejects_gets_one_xst000_saying_why(lint_with_other) -> None:
    run = lint_with_other("odd.py", LIBCST_REJECTS + HEAD + TAIL)
    assert run.at("odd.py", "E9") == [], "CPython accepts this file"
    assert run.at("odd.py") == [(1, 1, "XST000")], run.describe()
    (violation,) = [v for v in run.violations if v.path == "odd.py"]
    # says why in the user's terms: libcst 1.9's parser rejects this input with its own
    # grammar's expectations, which mean nothing to the user
    assert "libcst" in violation.text, violation.text
    assert "cannot parse a construct that Python accepts" in violation.text, violation.text
    assert "the statement at line 1; it gave up at line 2, column 6" in violation.text
    assert "Syntax Error @" not in violation.text and "expected one of" not in violation.text


def test_xst000_is_silenced_by_noqa_on_line_1_as_its_fix_says(lint_with_other) -> None:
    silenced = LIBCST_REJECTS.rstrip("\n") + "  # noqa: XST000\n"
    run = lint_with_other("odd.py", silenced + HEAD + TAIL)
    assert run.at("odd.py") == [], run.describe()


def test_file_libcst_rejects_still_gets_other_plugins_findings(flake8, write) -> None:
    write("odd.py", LIBCST_REJECTS + HEAD + TAIL)
    run = flake8("--select=XST,F821", "odd.py")
    run.assert_flake8_went_on()
    assert run.at("odd.py") == [(1, 1, "XST000")], run.describe()
    assert run.at("odd.py", "F821"), run.describe()


def _nested(opening: str, closing: str, depth: int) -> str:
    return opening * depth + "ext" + closing * depth


DEEP_EXPRESSIONS = {
    "100 parentheses": "y = " + _nested("(", ")", 100),
    "100 lists": "y = " + _nested("[", "]", 100),
    "199 parentheses (CPython's maximum)": "y = " + _nested("(", ")", 199),
    "199 lists": "y = " + _nested("[", "]", 199),
    "198 mixed brackets": "y = " + _nested("([{", "}])", 66),
    "199 calls": "y = " + _nested("f(", ")", 199),
    "300 unary minus": "y = " + "-" * 300 + "ext",
    "300 not": "y = " + "not " * 300 + "ext",
    "300-term sum": "y = " + " + ".join(["ext"] * 300),
    "300 attributes": "y = ext" + ".a" * 300,
    "300 chained calls": "y = ext" + "()" * 300,
    "300 subscripts": "y = ext" + "[0]" * 300,
    "300 conditional expressions": "y = " + "a if b else " * 300 + "ext",
    "300 lambdas": "y = " + "lambda: " * 300 + "ext",
    "300 powers": "y = " + " ** ".join(["ext"] * 300),
    "3000-term and": "y = " + " and ".join(["ext"] * 3000),
    "3000-term comparison": "y = " + " < ".join(["ext"] * 3000),
}


def test_deeply_nested_expressions_are_analysed(flake8, write) -> None:
    """Each expression in a file of its own, all in one flake8 run (a process per expression
    was 17 interpreters importing libcst): each file still gets its one finding, and a crash
    on any of them would abort the run, losing ``other.py``'s."""
    names = {}
    for number, (label, expression) in enumerate(DEEP_EXPRESSIONS.items()):
        name = f"deep_{number:02d}.py"
        write(name, HEAD + expression + "\n" + TAIL)
        names[name] = label
    write("other.py", MISUSE)
    run = flake8("--select=XST,E9", *names, "other.py")
    run.assert_flake8_went_on()
    assert run.at("other.py") == [(3, 1, "XST101")], run.describe()
    wrong = {label: run.at(name) for name, label in names.items()}
    wrong = {label: found for label, found in wrong.items() if found != [(4, 1, "XST101")]}
    assert not wrong, f"{wrong}\n{run.describe()}"


def test_99_nested_blocks_cpythons_maximum(lint_with_other) -> None:
    blocks = "".join(" " * depth + "if y:\n" for depth in range(99))
    run = lint_with_other("blocks.py", HEAD + blocks + " " * 99 + TAIL)
    assert run.at("blocks.py") == [(102, 100, "XST101")], run.describe()


def test_nested_functions_and_classes(lint_with_other) -> None:
    levels = []
    for depth in range(40):
        keyword = "def f():" if depth % 2 else "class C:"
        levels.append("    " * depth + keyword + "\n")
    body = "    " * 40 + "ext.synchronize()\n"
    run = lint_with_other("nested.py", HEAD + "".join(levels) + body)
    # ``ext`` is the module's global: every nested scope sees the same external stream.
    assert run.at("nested.py") == [(43, 161, "XST101")], run.describe()


def _concatenation(lines: int) -> str:
    parts = "".join(f'    "ExternalStream docs, part {i} "\n' for i in range(lines))
    return HEAD + "doc = (\n" + parts + ")\n" + TAIL


def test_20000_line_implicit_string_concatenation(lint_with_other) -> None:
    run = lint_with_other("strings.py", _concatenation(20_000))
    found = run.at("strings.py")
    # libcst 1.9 parses at most 3,000 implicitly concatenated strings: the analysis may only
    # say so (one XST000 saying why), or find the misuse after the string; nothing else.
    assert found in ([(20_005, 1, "XST101")], [(1, 1, "XST000")]), run.describe()
    if found == [(1, 1, "XST000")]:
        (violation,) = [v for v in run.violations if v.path == "strings.py"]
        assert "libcst" in violation.text, violation.text


def test_2000_line_implicit_string_concatenation_is_analysed(lint_with_other) -> None:
    run = lint_with_other("strings.py", _concatenation(2_000))
    assert run.at("strings.py") == [(2_005, 1, "XST101")], run.describe()


def test_utf8_bom(lint_with_other) -> None:
    run = lint_with_other("bom.py", b"\xef\xbb\xbf" + (HEAD + TAIL).encode())
    assert run.at("bom.py") == [(3, 1, "XST101")], run.describe()


def test_latin1_file_with_coding_cookie_and_character_columns(lint_with_other) -> None:
    source = "# -*- coding: latin-1 -*-\n" + HEAD + 'name = "café"; ext.synchronize()\n'
    run = lint_with_other("latin.py", source.encode("latin-1"))
    # flake8 columns count characters: 'ext' starts at character 15 (0-based).
    assert run.at("latin.py") == [(4, 16, "XST101")], run.describe()


def test_utf8_columns_count_characters_not_bytes(lint_with_other) -> None:
    run = lint_with_other("utf8.py", HEAD + 's = "ééé"; ext.synchronize()\n')
    assert run.at("utf8.py") == [(3, 12, "XST101")], run.describe()


def test_undecodable_file_is_read_as_latin1_by_flake8(lint_with_other) -> None:
    content = HEAD.encode() + b"name = '\xff\xfe\xc3('\n" + TAIL.encode()
    run = lint_with_other("undecodable.py", content)
    assert run.at("undecodable.py") == [(4, 1, "XST101")], run.describe()


def test_unknown_coding_cookie(lint_with_other) -> None:
    content = b"# -*- coding: no-such-codec -*-\n" + (HEAD + TAIL).encode()
    run = lint_with_other("cookie.py", content)
    assert run.at("cookie.py", "XST0") == [], run.describe()


def test_utf16_file(lint_with_other) -> None:
    content = ("# -*- coding: utf-16 -*-\n" + HEAD + TAIL).encode("utf-16")
    run = lint_with_other("utf16.py", content)
    assert run.at("utf16.py", "XST0") == [], run.describe()


def test_null_byte(lint_with_other) -> None:
    run = lint_with_other("nul.py", HEAD.encode() + b"x = 1\x00\n" + TAIL.encode())
    assert run.at("nul.py") == [], run.describe()


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_other_line_endings(lint_with_other, newline: str) -> None:
    run = lint_with_other("endings.py", (HEAD + TAIL).replace("\n", newline).encode())
    assert run.at("endings.py") == [(3, 1, "XST101")], run.describe()


def test_tabs_and_form_feeds_count_as_one_column(lint_with_other) -> None:
    source = HEAD + "if y:\n\tx = 1;\text.synchronize()\n\x0c\nif y:\n\x0c    ext.query()\n"
    run = lint_with_other("ws.py", source)
    assert run.at("ws.py") == [(4, 9, "XST101"), (7, 6, "XST102")], run.describe()


def test_no_trailing_newline_and_marker_only_in_a_comment(lint_with_other, write) -> None:
    write("comment.py", "# ExternalStream is documented elsewhere\nx = 1")
    run = lint_with_other("last.py", (HEAD + TAIL).rstrip("\n"), "comment.py")
    assert run.at("last.py") == [(3, 1, "XST101")], run.describe()
    assert run.at("comment.py") == [], run.describe()


@pytest.mark.parametrize("content", ["", "\n", "\ufeff", "ExternalStream", "stream_ptr = 0\n"])
def test_tiny_files(lint_with_other, content: str) -> None:
    run = lint_with_other("tiny.py", content)
    assert run.at("tiny.py", "XST0") == [], run.describe()
