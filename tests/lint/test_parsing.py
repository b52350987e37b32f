"""libcst parsed without its per-node validation: the same trees, and the hook put back.

:func:`extstream_lint.analysis.source.parsing.parse` switches off ``CSTNode.__post_init__`` (all
it does is validate) while libcst's parser builds a tree. These tests hold it to that: the
trees are equal to libcst's own on real and generated code, validation works again after
every parse (also one that fails), and the switch is made only while libcst's node classes
leave ``__post_init__`` to ``CSTNode``.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libcst._nodes.base import CSTNode

from extstream_lint.analysis.source import parsing

_CASES = sorted((Path(__file__).parent.parent / "lint_cases").glob("*.py"))
_STDLIB = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("[a-c]*.py"))[:25]


@pytest.mark.parametrize("path", [*_CASES, *_STDLIB], ids=lambda p: p.name)
def test_trees_equal_libcsts_own(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        expected = cst.parse_module(text)
    except cst.ParserSyntaxError:
        pytest.skip(f"libcst itself cannot parse {path.name}")
    found, _ = parsing.parse(text)
    assert found.deep_equals(expected)
    assert found.code == text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                "x = f(a, *b, k=v, **w)\n",
                "async def g():\n    async with a as b:\n        await c\n",
                "class C(B, metaclass=M):\n    @d\n    def m(self) -> int: return 1\n",
                "y = [i for i in range(3) if i] + {k: v for k, v in z}\n",
                "try:\n    pass\nexcept* E as e:\n    raise\n",
                'z = f"{a!r:>{w}}" + b"\\x00" + r"\\d"\n',
                "match p:\n    case [1, *r] | {'k': _}:\n        pass\n",
                "lambda *a, k=1, **w: (yield)\n",
            ]
        ),
        min_size=1,
        max_size=6,
    )
)
def test_generated_programs_parse_to_the_same_tree(lines: list[str]) -> None:
    text = "".join(lines)
    found, _ = parsing.parse(text)
    assert found.deep_equals(cst.parse_module(text))


def test_validation_is_back_after_every_parse() -> None:
    validate = CSTNode.__post_init__
    parsing.parse("x = 1\n")
    with pytest.raises(parsing.Unparsable):
        parsing.parse("def (:\n")
    assert CSTNode.__post_init__ is validate
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")  # libcst's own check, untouched outside our parse


def test_the_switch_is_made_only_while_no_node_class_has_its_own_post_init(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert parsing._validation_hook() is CSTNode.__dict__["__post_init__"]  # libcst 1.9
    monkeypatch.setattr(cst.Name, "__post_init__", lambda self: None, raising=False)
    assert parsing._validation_hook() is None  # a future libcst: parse validated, as is


def test_valid_python_only_libcsts_validation_refused_is_analysed() -> None:
    # libcst 1.9 builds this tree, then its validation raises an internal TypeError (its
    # issue 1061): such files got XST000 before; parsed unvalidated, they are linted.
    from extstream_lint.analysis import analyze_source

    source = (
        "import torch\nx = () if 0 else(lambda:())\n"
        "ext = torch.npu.ExternalStream(h)\next.query()\n"
    )
    with pytest.raises(TypeError):
        cst.parse_module(source)
    assert [(f.line, f.code) for f in analyze_source(source, "snippet.py")] == [(4, "XST102")]
