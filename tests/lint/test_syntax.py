"""Small syntax helpers against what they stand in for."""

from __future__ import annotations

import warnings

import libcst as cst
from hypothesis import example, given
from hypothesis import strategies as st

from extstream_lint.analysis.source.syntax import called_names, string_value

_QUOTES = ("'", '"', "'''", '"""')
_PREFIXES = ("", "r", "u", "b", "R", "rb")


@example("a\r\nb", '"""', "")
@example("a\rb", "'''", "")
@given(
    # No NUL: CPython rejects it anywhere in a source file, libcst does not.
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        max_size=12,
    ),
    st.sampled_from(_QUOTES),
    st.sampled_from(_PREFIXES),
)
def test_string_value_is_what_python_evaluates(text: str, quote: str, prefix: str) -> None:
    """The fast path (no prefix, no backslash) and the fallback agree with libcst's
    ``evaluated_value`` on every literal that parses; bytes and bad escapes are None."""
    literal = f"{prefix}{quote}{text}{quote}"
    try:
        node = cst.parse_expression(literal)
    except Exception:
        return  # not a literal (a quote inside it, a newline in a one-line string...)
    if type(node) is not cst.SimpleString:
        return  # "a""b": two literals
    try:
        with warnings.catch_warnings():  # "\\d" warns: the user's compiler reports it
            warnings.simplefilter("ignore")
            expected = node.evaluated_value
    except Exception:
        expected = None
    assert string_value(node) == (expected if isinstance(expected, str) else None)


def test_string_value_of_a_bad_escape_is_none() -> None:
    node = cst.parse_expression('"\\N{NOSUCHNAME}"')
    assert isinstance(node, cst.SimpleString)
    assert string_value(node) is None


def test_called_names_are_the_bodys_own_calls_by_name() -> None:
    source = (
        "def run(self, h):\n"
        "    helper(h)\n"
        "    self.step(h, key=lambda: hidden())\n"
        "    cls.make()\n"
        "    other.method()\n"
        "    table['x']()\n"
        "    def inner():\n"
        "        nested()\n"
        "    class Local:\n"
        "        field = made()\n"
    )
    function = cst.parse_module(source).body[0]
    assert isinstance(function, cst.FunctionDef)
    assert sorted(called_names(function)) == [(False, "helper"), (True, "make"), (True, "step")]
