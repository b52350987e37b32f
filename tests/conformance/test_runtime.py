"""The cases' ground truth, run: twins executed under the simulated torch_npu of tests/guard.

The suite's expectations come from the contract; this checks them against the **real** Python
files of the torch-npu wheel over the simulated C layer (``tests/guard/npusim``, torch_npu's exact
error texts), with the guard off. Each case's module-level ``positive`` function must raise
torch_npu's external-stream ``RuntimeError`` and its ``negative`` function must not (any other
error is the stand-in's: a CUDA stream on CPU-only torch, say). Only the twins whose codes are
refused operations (XST1xx) are run this way: the constructor rules (XST0xx) do not raise, which
is their point. Cases whose twins are methods or class bodies have nothing to call and are
counted, not run; the cases listed in :data:`NOT_RUN` say why a generic call cannot run them.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from tests import _npu_wheel
from tests._skips import NO_TORCH
from tests.conformance.suite import FIXTURES, SECTIONS, Case, load_cases

#: torch_npu's texts for the refused operations (contract §1.1, rows X01 and X02).
_REFUSED = re.compile(
    r"External NPU stream is not supported in |Cannot query external NPU stream status"
)
_HANDLE = 0x7A00_0000

#: Cases with module-level twins that a call with stand-in arguments cannot exercise, and why.
NOT_RUN: dict[str, str] = {
    "functions/annotated_parameter": "the stream is the caller's: only the annotation says so",
    "functions/annotated_return": "the stream is the caller's: only the annotation says so",
    "functions/return_one_branch": "external only when the caller passes a true flag",
    "closures/global_statement": "the global is set by setup(), which the case never calls",
    "exceptions/fallback_in_except": "external only on the exception path",
    "exceptions/suppress": "the refused call's RuntimeError is what suppress() swallows",
    "match/as_pattern": "the subject is the caller's",
    "placement/instance_stream_no_caller": "no caller of the method is visible: that is the case",
    "placement/subclass_no_caller": "no call on the subclass's instances is visible: the case",
    "with_stmt/collective_inside": "needs an initialised HCCL process group",
    "classes/base_in_module_stream_collective": "needs an initialised HCCL process group",
    "with_stmt/work_list_batch_isend_irecv": (
        "the simulated process groups have no backend for batch_isend_irecv's coalescing"
    ),
    "classes/param_method_collective": "needs an initialised HCCL process group",
    "with_stmt/cross_device_copy": "the simulation has no factory functions on npu devices",
    "devices/factory_under_device_context": "no factory functions on npu devices in the simulation",
    "autograd/detach_in_place": "the simulation's NPU results are views, which detach_() refuses",
    "devices/pinned_factory_other_device": "the simulation pins only through pin_memory()",
    "devices/pinned_factory_kwargs": "the simulation pins only through pin_memory()",
    "devices/pinned_factory_flag": "the simulation pins only through pin_memory()",
    "hazard_flow/pin_flag_dict_spread": "the simulation pins only through pin_memory()",
    "hazard_flow/pin_flag_pool_method": "the simulation pins only through pin_memory()",
    "devices/loader_batch_items": "the twins iterate a DataLoader over a dataset: none is given",
    "devices/pinned_to_other_tensor": "torch's argument parser sees a simulated NPU tensor on cpu",
    "devices/device_read_by_helper": "the simulation's nn.Module.to leaves parameters on npu:0",
    "unbound_methods/torch_stream_synchronize": (
        "the simulation's streams do not reach torch.Stream's C synchronize (contract X01)"
    ),
    "with_stmt/multiple_items": "the simulation has no torch.accelerator.Graph",
    "imports/transfer_same_file": "the simulation has no torch_npu.contrib.transfer_to_npu",
    "imports/transfer_package_init": "the simulation has no torch_npu.contrib.transfer_to_npu",
    "imports/transfer_imported_module": "the simulation has no torch_npu.contrib.transfer_to_npu",
    "imports/transfer_transitive": "the simulation has no torch_npu.contrib.transfer_to_npu",
    "library_flow/tensor_register_hook": "the hook runs in a backward the case does not run",
    "library_flow/forward_hook_object": "the hook runs in a forward the case does not run",
}
NOT_RUN.update(
    dict.fromkeys(
        (
            "imports/importlib_transfer",
            "imports/transfer_parent_plain_import",
            "imports/transfer_parent_package",
            "imports/transfer_own_package",
            "imports/transfer_nested_package",
            "imports/transfer_package_transitive",
            "imports/transfer_init_imports_module_first",
            "devices/loader_batch_cuda",
            "imports/transfer_cudagraph_attribute",
            "imports/transfer_cudagraph_module_path",
        ),
        "the simulation has no torch_npu.contrib.transfer_to_npu",
    )
)


def _work() -> None:
    raise RuntimeError("work failed")


def _argument(name: str) -> Any:
    from tests.guard import npusim

    if name == "h":
        return _HANDLE
    if name in ("t", "x"):
        return npusim.npu_tensor([1.0, 2.0])
    if name == "w":  # a weight: a leaf on the NPU that requires grad
        return npusim.npu_tensor([1.0, 2.0], requires_grad=True)
    if name == "work":
        return _work
    if name == "g":  # a simulated HCCL process group (tests/guard/npusim/fake_dist.py)
        from tests.guard.npusim import fake_dist

        group = fake_dist.new_group()
        fake_dist.register(group)
        return group
    return None


@pytest.fixture(scope="module")
def simulated() -> Iterator[Any]:
    pytest.importorskip("torch", reason=NO_TORCH)
    from tests.guard import npusim
    from tests.guard._wheels import wheel_tree

    version = _npu_wheel.sim_version()
    sim = npusim.build(wheel_tree(version), version)
    npusim.activate(sim)
    try:
        yield sim
    finally:
        npusim.deactivate()


@contextlib.contextmanager
def _modules(case: Case) -> Iterator[list[ModuleType]]:
    """The case's modules, imported from their files, and importable until the block ends
    (twins may import lazily); a directory case is imported from its own root. What they
    register with :mod:`atexit` is taken back when the block ends: those calls belong to the
    program's exit, and at this process's exit the simulated torch_npu is gone."""
    registered: list[Callable[..., Any]] = []
    register = atexit.register

    def _noted(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[..., Any]:
        registered.append(fn)
        return register(fn, *args, **kwargs)

    atexit.register = _noted  # type: ignore[assignment]
    try:
        with _imported(case) as modules:
            yield modules
    finally:
        atexit.register = register  # type: ignore[assignment]
        for fn in registered:
            atexit.unregister(fn)


@contextlib.contextmanager
def _imported(case: Case) -> Iterator[list[ModuleType]]:
    """The case's modules, imported (see :func:`_modules`)."""
    if not case.multi_module:
        path = FIXTURES / case.files[0]
        name = f"xst_case_{case.section.folder}_{case.name}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # as an import would: dataclasses look their module up
        try:
            spec.loader.exec_module(module)
            yield [module]
        finally:
            del sys.modules[name]
        return
    root = FIXTURES / case.section.folder / case.name
    before = set(sys.modules)
    sys.path.insert(0, str(root))
    try:
        dotted = [rel.split("/", 2)[2].removesuffix(".py").replace("/", ".") for rel in case.files]
        yield [importlib.import_module(name.removesuffix(".__init__")) for name in dotted]
    finally:
        sys.path.remove(str(root))
        for name in set(sys.modules) - before:
            del sys.modules[name]


def _outcome(sim: Any, fn: Callable[..., Any]) -> str:
    """'refused' when torch_npu's external-stream error is raised, or when a deferred hazard
    (a pinned block, a gradient recorded on an external stream) would abort the process as
    the twin's tensors are freed; else 'ran'."""
    import gc

    from tests.guard.npusim import memory

    sim.state.reset()
    terminated: list[str] = []
    memory.terminate = terminated.append  # an abort is this twin's outcome, not the worker's
    recorded = memory.RECORDS[0]
    try:
        with memory.only_new_objects_collected():  # a collection walks what the twin made
            outcome = _run(fn)
            if memory.RECORDS[0] != recorded:  # only a recorded event can abort at a free
                gc.collect()  # the twin's tensors die: a deferred abort happens here
    finally:
        memory.terminate = memory.abort
    return "refused" if terminated else outcome


def _run(fn: Callable[..., Any]) -> str:
    args = [_argument(name) for name in inspect.signature(fn).parameters]
    try:
        result = fn(*args)
        if inspect.iscoroutine(result):
            asyncio.run(result)
    except Exception as exc:
        return "refused" if _REFUSED.search(str(exc)) else "ran"
    finally:
        del args
    return "ran"


#: Cases whose twins run at least, in the sections of hazard 3, which must run nearly whole.
_MIN_RUN = {"autograd": 30, "devices": 15}


@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="cases use library features of 3.11 (typing.dataclass_transform, dataclass kw_only)",
)
@pytest.mark.parametrize("section", [s.folder for s in SECTIONS])
def test_positive_twins_are_refused_and_negative_twins_are_not(
    simulated: Any, section: str
) -> None:
    """One section at a time, so the test runner can spread the sections over its workers."""
    run, wrong = 0, []
    for case in _runnable(section):
        with _modules(case) as modules:
            twins = {
                twin: [
                    m.__dict__[twin] for m in modules if inspect.isfunction(m.__dict__.get(twin))
                ]
                for twin in ("positive", "negative")
            }
            if not twins["positive"]:
                continue
            run += 1
            for twin, want in (("positive", "refused"), ("negative", "ran")):
                for fn in twins[twin]:
                    got = _outcome(simulated, fn)
                    if got != want:
                        wrong.append(f"{case.id}: {twin} {got}, the contract says {want}")
    assert not wrong, "\n".join(wrong)
    assert run >= _MIN_RUN.get(section, 0), (section, run)


def _runnable(section: str | None = None) -> Iterator[Case]:
    """The cases whose twins can run here (of one section, or all)."""
    attrs_installed = importlib.util.find_spec("attrs") is not None
    for case in load_cases():
        if section is not None and case.section.folder != section:
            continue
        codes = {code for _, _, code in case.expected}
        if case.id in NOT_RUN or not case.runs_here or not all(c > "XST1" for c in codes):
            continue
        if case.id == "dataclasses/attrs_define" and not attrs_installed:
            continue  # attrs comes with jsonschema, not by name in the test extra
        yield case


def test_most_cases_have_twins_to_run(simulated: Any) -> None:
    """Most cases are run: a change that silently stopped running them (a twin renamed, a
    filter grown) would show here, without running any twin."""
    run = 0
    for case in _runnable():
        with _modules(case) as modules:
            run += any(inspect.isfunction(m.__dict__.get("positive")) for m in modules)
    assert run >= 180, run


def test_not_run_names_real_cases() -> None:
    ids = {case.id for case in load_cases()}
    assert set(NOT_RUN) <= ids
