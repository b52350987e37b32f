"""The flow-model table (issue 38, family 4): one table of what library calls do to values,
one routine applying it, a page generated from it, a conformance case per row.

The models' behaviour is measured by the conformance section ``library_flow`` (a case per
row, each with a negative twin); these are the table's own invariants, the page, and the
claim that a model is a row: a row added here is followed with no code written.
"""

from __future__ import annotations

import pytest

from extstream_lint.analysis import analyze_source
from extstream_lint.analysis.semantics import flowmodels as fm
from extstream_lint.frontends import flowdocs
from tests.conformance.suite import load_cases


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in analyze_source(source)]


def test_docs_flow_models_md_is_what_the_table_renders() -> None:
    assert flowdocs.check(), "stale: run python -m extstream_lint.frontends.flowdocs --write"


def test_the_page_has_a_line_per_row() -> None:
    page = flowdocs.render_markdown()
    for model in fm.MODELS:
        assert f"| `{model.callee}` | `{model.kind}` |" in page


def test_every_row_names_a_conformance_case_that_exists() -> None:
    ids = {case.id for case in load_cases()}
    missing = [(m.callee, m.case) for m in fm.MODELS if m.case not in ids]
    assert not missing


def test_the_library_flow_section_has_a_case_per_row_of_its_own() -> None:
    cases = {case.id for case in load_cases() if case.section.folder == "library_flow"}
    assert len(cases) >= 25
    assert {m.case for m in fm.MODELS if m.case.startswith("library_flow/")} <= cases


def test_one_row_per_callee_in_the_vocabulary() -> None:
    assert len(fm.BY_CALLEE) == len(fm.MODELS)
    assert {m.kind for m in fm.MODELS} <= set(fm.KINDS) == set(flowdocs.KIND_MEANINGS)


def test_method_rows_belong_to_a_holder_or_to_any_receiver() -> None:
    classes = {fm.holder_class(m) for m in fm.HOLDERS.values()}
    for model in fm.MODELS:
        if model.kind in (fm.STORES, fm.LOADS):
            owner = model.callee.rsplit(".", 1)[0]
            assert owner in classes, model.callee
    for holder in fm.HOLDERS.values():
        if holder.like:  # its class's rows exist (a queue like queue.Queue has put and get)
            assert any(m.callee.startswith(f"{holder.like}.") for m in fm.MODELS), holder
    assert {"submit", "map", "run_in_executor"} <= fm.ANY_RECEIVER


_IDENTITY = """
import mylib
from torch_npu.npu import ExternalStream


def f(h):
    mylib.passthrough(ExternalStream(h)).synchronize()
"""

_MAILBOX = """
import mylib
import torch
from torch_npu.npu import ExternalStream

BOX = mylib.Mailbox()
OTHER = mylib.Mailbox()


def f(h):
    BOX.post(ExternalStream(h))
    OTHER.post(torch.npu.Stream())
    BOX.take().synchronize()
    OTHER.take().synchronize()
"""


@pytest.fixture
def extra_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three rows of an imaginary library, added the way a model is added: to the table."""
    rows = (
        fm.FlowModel("mylib.passthrough", fm.RETURNS, 0, "value"),
        fm.FlowModel("mylib.Mailbox", fm.HOLDER, shared=True),
        fm.FlowModel("mylib.Mailbox.post", fm.STORES, 0, "item"),
        fm.FlowModel("mylib.Mailbox.take", fm.LOADS),
    )
    models = (*fm.MODELS, *rows)
    by_callee = {m.callee: m for m in models}
    monkeypatch.setattr(fm, "MODELS", models)
    monkeypatch.setattr(fm, "BY_CALLEE", by_callee)
    monkeypatch.setattr(fm, "HOLDERS", {m.callee: m for m in models if m.kind == fm.HOLDER})
    monkeypatch.setattr(fm, "FUNCTIONS", fm.FUNCTIONS | {"mylib.passthrough", "mylib.Mailbox"})


def test_without_a_row_an_unknown_library_call_gives_nothing() -> None:
    assert _codes(_IDENTITY) == []
    assert _codes(_MAILBOX) == []


@pytest.mark.usefixtures("extra_rows")
def test_a_model_is_a_row_no_code() -> None:
    assert _codes(_IDENTITY) == [(7, "XST101")]
    assert _codes(_MAILBOX) == [(13, "XST101")]  # the other mailbox holds a managed stream


_THREAD_CURRENT = """
import contextvars
import threading
import torch
from torch_npu.npu import ExternalStream


def work():
    torch.npu.current_stream().synchronize()


def f(h):
    with torch.npu.stream(ExternalStream(h)):
        threading.Thread(target=work).start()
        work()
        contextvars.copy_context().run(work)
        torch.npu.current_stream().query()
"""


def test_a_thread_runs_on_its_default_stream_not_the_callers() -> None:
    # the caller's thread has the external stream current: work() there, and run by
    # copy_context().run (same thread), synchronizes it; the new thread starts on its
    # default stream, so its work() is silent
    assert _codes(_THREAD_CURRENT) == [(15, "XST101"), (16, "XST101"), (17, "XST102")]


_QUEUE_MESSAGE = """
import queue
from torch_npu.npu import ExternalStream


def drain(jobs):
    jobs.get().synchronize()


def f(h):
    jobs = queue.Queue()
    jobs.put(ExternalStream(h))
    drain(jobs)
"""


def test_a_message_names_the_method_whose_result_is_refused() -> None:
    (finding,) = analyze_source(_QUEUE_MESSAGE)
    assert finding.line == 13
    assert "drain() calls synchronize() on what 'jobs.get()' returns" in finding.message


def test_the_builtins_and_itertools_are_rows_not_code() -> None:
    """Every builtin that moves values as a library function does is a row; the language's
    own (attribute access, ``type``, truth, the import hook) are not, and are said why."""
    from extstream_lint.analysis.interp import builtins

    moved = {"zip", "enumerate", "map", "filter", "sorted", "min", "max", "list", "dict", "next"}
    assert moved <= set(fm.BUILTINS) <= builtins.BUILTINS
    language = builtins.BUILTINS - set(fm.BUILTINS)
    assert language == {
        "bool",
        "isinstance",
        "getattr",
        "setattr",
        "vars",
        "type",
        "staticmethod",
        "__import__",
    }
    page = flowdocs.render_markdown()
    for name in language:
        assert f"`{name}`" in page.split("## What stays in code")[1], name
    for name in ("chain", "islice", "tee", "groupby", "pairwise", "accumulate", "product"):
        assert f"itertools.{name}" in fm.FUNCTIONS
    assert "importlib.import_module" in fm.FUNCTIONS


_REBOUND = """
import torch
from torch_npu.npu import ExternalStream


def zip(*xs):
    return [(torch.npu.Stream(),)]


def f(h):
    for (s,) in zip([ExternalStream(h)]):
        s.synchronize()


def g(h):
    for s in reversed([ExternalStream(h)]):
        s.synchronize()
"""


def test_a_builtin_row_applies_only_while_the_module_does_not_rebind_the_name() -> None:
    assert _codes(_REBOUND) == [(17, "XST101")]
