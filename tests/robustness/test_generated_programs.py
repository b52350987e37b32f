"""hypothesmith-generated programs, with external streams injected, never crash the analysis.

hypothesmith writes syntactically valid (and sometimes semantically odd) programs from
CPython's grammar (``from_grammar``) or from libcst's node types (``from_node``). We wrap each
one with an external stream and misuses around, inside and after it, so the interpreter's
value flow — not just libcst's parser — meets the generated constructs.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize

import hypothesmith
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from xst_robustness_support import check_findings, cpython_tree, newlines

from extstream_lint.analysis import analyze_source
from extstream_lint.findings import Finding

pytestmark = [
    pytest.mark.slow,
    # hypothesmith compiles every program it generates (compile(code, "<string>", ...)) to
    # keep only valid ones, and CPython's compiler warns about generated calls of literals
    # such as ``1()``, ``()()`` or ``{1}[0]``. Every such check of CPython's compiler ends its
    # text with "perhaps you missed a comma?" (not callable / not subscriptable / bad index).
    # The warning is about the generated text, raised inside hypothesmith, not by the
    # analysis (which parses quietly).
    pytest.mark.filterwarnings(r"ignore:.*; perhaps you missed a comma\?:SyntaxWarning"),
]

HEAD = "import torch\next = torch.npu.ExternalStream(handle)\n"


def _after(code: str) -> str:
    return HEAD + code + "\next.synchronize()\n"


def _inside_stream_context(code: str) -> str:
    body = textwrap.indent(code, "    ") or "    pass"
    return HEAD + "with torch.npu.stream(ext):\n" + body + "\n    ext.query()\n"


def _inside_function(code: str) -> str:
    body = textwrap.indent(code, "    ") or "    pass"
    return HEAD + "def f(ext=ext):\n" + body + "\n    ext.record_event()\nf()\n"


def _rebinding_everything(code: str) -> str:
    # The generated names may shadow ``ext``/``torch``; the alias keeps an external value alive.
    return HEAD + "alias = ext\n" + code + "\nalias.synchronize()\next = alias\next.query()\n"


def _as_stream_argument(code: str) -> str:
    return "import torch\n" + code + "\ns = torch.npu.Stream(stream_ptr=0)\ns.synchronize()\n"


INJECTIONS = {
    "after": _after,
    "inside_stream_context": _inside_stream_context,
    "inside_function": _inside_function,
    "rebinding": _rebinding_everything,
    "stream_ptr": _as_stream_argument,
}

SETTINGS = settings(
    deadline=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


def _assert_survives(source: str) -> list[Finding]:
    tree = cpython_tree(source)  # what flake8 would pass (None: flake8 would stop at E999)
    findings = analyze_source(source, "<generated>", tree=tree)
    assert check_findings(findings, newlines(source) + 1) == [], repr(source)
    # bytes in, same answer: the analysis decodes like CPython (unless a generated coding
    # cookie on line 2 names another codec, which legitimately changes the text)
    encoded = source.encode("utf-8")
    if _declared_encoding(encoded) == "utf-8":
        assert analyze_source(encoded, "<generated>", tree=tree) == findings, source
    return findings


def _declared_encoding(data: bytes) -> str:
    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:
        return "invalid"


@settings(SETTINGS, max_examples=300)
@given(code=hypothesmith.from_grammar(), inject=st.sampled_from(sorted(INJECTIONS)))
def test_programs_from_the_grammar(code: str, inject: str) -> None:
    _assert_survives(INJECTIONS[inject](code))


@settings(SETTINGS, max_examples=150)
@given(code=hypothesmith.from_node(), inject=st.sampled_from(sorted(INJECTIONS)))
def test_programs_from_libcst_nodes(code: str, inject: str) -> None:
    _assert_survives(INJECTIONS[inject](code))


@settings(SETTINGS, max_examples=150)
@given(code=hypothesmith.from_grammar())
def test_programs_that_do_not_touch_ext_still_report_the_misuse(code: str) -> None:
    # When the generated code cannot rebind or reach ``ext`` and cannot stop the module
    # early, and CPython accepts the combined program, the misuse after it must be found.
    source = _after(code)
    tree = cpython_tree(source)
    findings = _assert_survives(source)
    if tree is None or not _inert(code):
        event("generated code may interfere: only checked for crashes")
        return
    event("generated code is inert: the misuse must be found")
    assert ("XST101", newlines(source)) in {(f.code, f.line) for f in findings}, repr(source)


#: Nodes that may leave the module early, loop forever or rebind names behind our back.
_NOT_INERT = (
    ast.Return,
    ast.Raise,
    ast.Break,
    ast.Continue,
    ast.Global,
    ast.Nonlocal,
    ast.While,
    ast.Try,
    ast.Assert,
    ast.Yield,
    ast.YieldFrom,
    ast.Await,
    ast.Delete,
    ast.Match,
)
_DYNAMIC = {"exec", "eval", "globals", "locals", "vars", "setattr", "exit", "quit", "sys"}


def _inert(code: str) -> bool:
    tree = cpython_tree(code)
    if tree is None or "ext" in code or "torch" in code:
        return False
    for node in ast.walk(tree):
        if isinstance(node, _NOT_INERT):
            return False
        if isinstance(node, ast.alias) and node.name == "*":
            return False
        if isinstance(node, ast.Name) and node.id in _DYNAMIC:
            return False
    return True
