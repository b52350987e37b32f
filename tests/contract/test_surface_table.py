"""One walk over the surface table: every refused row has a lint fixture and a guard scenario.

A row's ``example`` is its lint fixture: linted alone (with ``ext`` an ``ExternalStream`` and,
for examples that do not name ``ext``, inside ``with torch.npu.stream(ext):``) it must yield
exactly the row's code, and the same lines with ``ext`` an ordinary ``torch.npu.Stream()``
must yield nothing. Every row the guard patches names the scenario of ``tests/guard`` that
exercises it; every row the guard cannot see says why (the README lists those reasons).
"""

from __future__ import annotations

import re
import textwrap

import pytest

from extstream_guard.patches import POINTS, WORK_POINTS, points_of
from extstream_lint.analysis import analyze_source
from extstream_lint.contract import APIS, HAZARDS, POINTER, REFUSED, RULES, Api, Rule
from tests.guard.scenarios import SCENARIOS

_PRELUDE = "import torch\nimport torch_npu\n\next = torch.npu.{ctor}\n"
_EXTERNAL, _MANAGED = "ExternalStream(handle)", "Stream()"

#: Refused row -> the scenario (tests/guard/scenarios.py) that drives its guard patch.
GUARD_SCENARIOS = {
    "torch_npu.npu.ExternalStream": "ctor-zero",
    "torch_npu.npu.Stream": "stream-ctor-zero",
    "torch_npu.npu.SyncLaunchStream": "synclaunch-ctor-pointer",
    "torch_npu.npu.Stream.synchronize": "sync-self",
    "torch_npu.npu.Stream.query": "query-self",
    "torch_npu.npu.Stream.record_event": "record_event-self",
    "torch_npu.npu.Stream.wait_event": "wait_event-self",
    "torch_npu.npu.Stream.wait_stream": "ext-wait_stream-managed",
    "torch_npu.npu.Event.record": "event-record-arg",
    "torch_npu.npu.Event.wait": "event-wait-arg",
    "torch.Tensor.record_stream": "record_stream-arg",
    "torch_npu.npu.NPUGraph.capture_begin": "capture_begin-current",
    "torch_npu.npu.NPUGraph.capture_end": "capture_end-current",
    "torch_npu.npu.graph": "graph-ctx-stream-ext",
    "torch_npu.npu.graph_task_group_begin": "task_group_begin",
    "torch_npu.npu.graph_task_group_end": "task_group_end",
    "torch_npu.npu.graph_task_update_begin": "task_update_begin",
    "torch_npu.npu.graph_task_update_end": "task_update_end",
    "torch_npu.npu.super_kernel_scope_begin": "super_kernel_begin-current",
    "torch_npu.npu.super_kernel_scope_end": "super_kernel_end-current",
    "torch_npu.npu._launch_host_func": "launch_host_func",
    "torch_npu.npu._subscribe_report": "subscribe_report",
    "torch_npu.npu._unsubscribe_report": "unsubscribe-report",
    "torch.distributed.all_reduce": "all_reduce-current",
    "torch.distributed.broadcast": "broadcast-current",
    "torch.distributed.all_gather_into_tensor": "all_gather_into_tensor-current",
    "torch.distributed.all_gather_single": "all_gather_single-current",
    "torch.distributed.reduce_scatter_tensor": "reduce_scatter_tensor-current",
    "torch.distributed.reduce_scatter_single": "reduce_scatter_single-current",
    "torch.distributed.barrier": "barrier-current",
    "torch.distributed.all_gather_into_tensor_uneven": "all_gather_uneven-current",
    "torch.distributed.send": "send-current",
    "torch.distributed.Work.wait": "work-wait-current",
    "torch.distributed.Work.synchronize": "work-synchronize-current",
}
#: The other collectives share one wrapper factory per kind with a row above, which the
#: scenario of that row exercises (same kind, same native text).
SHARED_WRAPPER = {"collective": "all_reduce-current", "group": "barrier-current"}
_RECORDING_COLLECTIVE = "send-current"


def _source(api: Api, ctor: str) -> str:
    example = api.example
    if not re.search(r"\bext\b", example):
        example = "with torch.npu.stream(ext):\n" + textwrap.indent(example, "    ")
    return _PRELUDE.format(ctor=ctor) + example + "\n"


@pytest.mark.parametrize("api", REFUSED, ids=[a.name for a in REFUSED])
def test_example_is_a_lint_fixture(api: Api) -> None:
    source = _source(api, _EXTERNAL)
    findings = analyze_source(source)
    assert findings and {f.code for f in findings} == {api.code}, (source, findings)
    assert all(f.line > 4 for f in findings), findings  # on the example, not the prelude
    if api.supply != POINTER:
        managed = analyze_source(_source(api, _MANAGED))
        assert not managed, managed


@pytest.mark.parametrize("api", REFUSED, ids=[a.name for a in REFUSED])
def test_guard_patches_or_says_why_not(api: Api) -> None:
    by_id = {s.id: s for s in SCENARIOS}
    points = points_of(api)
    if not points:
        assert api.guard_blind, f"{api.name}: no guard patch and no reason"
        assert api.name not in GUARD_SCENARIOS
        return
    scenario_id = GUARD_SCENARIOS.get(api.name)
    if scenario_id is None:
        kinds = {p.kind for p in points}
        assert len(kinds) == 1 and kinds <= set(SHARED_WRAPPER), api.name
        scenario_id = SHARED_WRAPPER[kinds.pop()]
        if "NPUEvent::record" in api.native:
            scenario_id = _RECORDING_COLLECTIVE
        shared = {p.native for a in REFUSED if GUARD_SCENARIOS.get(a.name) == scenario_id
                  for p in points_of(a)}  # fmt: skip
        assert {p.native for p in points} <= shared
    scenario = by_id[scenario_id]
    assert scenario.code == api.code
    assert set(points) <= set(POINTS) | set(WORK_POINTS)


def test_every_rule_has_rows_and_every_row_a_rule() -> None:
    codes = {api.code for api in REFUSED} | {code for row in HAZARDS for code in row.codes}
    assert codes == set(RULES) - {"XST000"}


def test_each_method_name_means_one_code_per_supply() -> None:
    """The analysis matches methods by name (it rarely knows the receiver's class), so two
    rows sharing a method name and a way of supplying the stream must agree on the code."""
    seen: dict[tuple[str, str], str] = {}
    for api in REFUSED:
        if api.method:
            assert seen.setdefault((api.attr, api.supply), api.code or "") == api.code, api.name


def test_spellings_are_unique() -> None:
    names = [name for api in APIS for name in api.spellings]
    assert len(names) == len(set(names))


def test_table_imports_only_the_standard_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import extstream_lint.contract; "
        "bad = [m for m in ('libcst', 'flake8', 'torch') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# --- rule pages: examples are tests (as in Fixit) -----------------------------------------------


@pytest.mark.parametrize("rule", RULES.values(), ids=list(RULES))
def test_rule_example_yields_exactly_its_code(rule: Rule) -> None:
    """What ``--explain`` and the README print must be true when linted as printed."""
    findings = analyze_source(rule.example)
    assert findings and {f.code for f in findings} == {rule.code}, findings


@pytest.mark.parametrize("rule", RULES.values(), ids=list(RULES))
def test_rule_use_instead_yields_nothing(rule: Rule) -> None:
    assert analyze_source(rule.instead) == []


def test_readme_lists_what_the_guard_cannot_see() -> None:
    from extstream_lint.frontends.docs import GUARD_BLIND_SECTION, README_PATH, check, section_text

    with open(README_PATH, encoding="utf-8") as handle:
        listed = section_text(handle.read(), GUARD_BLIND_SECTION)
    assert check() == []
    for api in REFUSED:
        if api.guard_blind:
            assert api.guard_blind in listed, api.name
