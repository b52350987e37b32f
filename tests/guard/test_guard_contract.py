"""The guard's contract with the real torch_npu wheels, read (never imported).

By default the oldest and the newest release that ship ``ExternalStream``
(``tests/_npu_wheel.CI_RELEASES``); ``EXTSTREAM_NPU_VERSIONS=2.9.0.post9,2.10.0.post7`` or
``=all`` reads others (``python tests/guard/check_releases.py`` sets it).

Fails if any module path, class, method, parameter, export or native error string that a row of
``extstream_guard.patches.POINTS`` relies on is missing from a wheel. The wheels are downloaded
into ``.cache/`` (see ``tests/_npu_wheel.py``); a failed download fails these tests unless
``EXTSTREAM_NPU_WHEEL_OFFLINE=1`` is set.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from extstream_guard.patches import HAZARD_POINTS, POINTS, Point
from extstream_lint.contract import (
    NATIVE_PRIORITY,
    NATIVE_SYNC_LAUNCH,
    RULES,
    native_not_supported,
)
from tests import _npu_wheel
from tests._skips import NO_TORCH
from tests.guard._wheels import wheel_tree

VERSIONS = _npu_wheel.versions()
_PREFIX = "External NPU stream is not supported in "
_SUFFIXES = (
    ". This path requires a torch_npu-managed stream.",
    ". This path requires a torch_npu-managed current stream.",
)
NPU_POINTS = [p for p in POINTS if p.defined_in.startswith("torch_npu")]


@cache
def _tree(version: str) -> Path:
    return wheel_tree(version)


@cache
def _parse(version: str, module: str) -> ast.Module:
    relative = module.replace(".", "/")
    root = _tree(version)
    path = root / f"{relative}.py"
    if not path.exists():
        path = root / relative / "__init__.py"
    assert path.exists(), f"torch_npu {version}: module {module} ({relative}) is missing"
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _top(tree: ast.Module, name: str) -> ast.AST | None:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return node
    return None


def _member(node: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == name:
            return item
    return None


def _exports(tree: ast.Module) -> set[str]:
    """Names a module binds at top level: defs, classes and ``from ... import`` aliases."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _dunder_all(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return set(ast.literal_eval(node.value))
    return set()


def _definition(version: str, point: Point) -> ast.FunctionDef:
    module, qualname = point.defined_in.split(":")
    tree = _parse(version, module)
    owner, _, attr = qualname.rpartition(".")
    if owner:
        cls = _top(tree, owner)
        assert isinstance(cls, ast.ClassDef), f"{version}: class {module}.{owner} is missing"
        node = _member(cls, attr)
        assert node is not None, f"{version}: {module}.{qualname} is missing"
    else:
        node = _top(tree, attr)
        assert isinstance(node, ast.FunctionDef), f"{version}: {module}.{attr} is missing"
    return node


@pytest.fixture(params=VERSIONS, scope="module")
def version(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.mark.parametrize("point", NPU_POINTS, ids=[f"{p.defined_in}" for p in NPU_POINTS])
def test_definition_and_parameters(version: str, point: Point) -> None:
    node = _definition(version, point)
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    assert tuple(params[: len(point.params)]) == point.params, (
        f"{version}: {point.defined_in} takes {params}, the guard expects {point.params}"
    )
    if point.kind in ("arg", "event"):
        assert params[point.index] == point.name or point.index >= len(params)


@pytest.mark.parametrize("point", NPU_POINTS, ids=[f"{p.defined_in}" for p in NPU_POINTS])
def test_every_owner_path_exports_the_name(version: str, point: Point) -> None:
    module, qualname = point.defined_in.split(":")
    for path in point.owners:
        parent, _, leaf = path.rpartition(".")
        is_class_path = "." in qualname and leaf == qualname.split(".")[0]
        name = leaf if is_class_path else point.attr
        where = parent if is_class_path else path
        if where == module:
            continue
        assert name in _exports(_parse(version, where)), f"{version}: {where} lacks {name}"
        public = not name.startswith("_")
        if public and where in ("torch_npu.npu", "torch_npu.distributed"):
            assert name in _dunder_all(_parse(version, where)), f"{version}: {where}.__all__"


def test_public_names_are_in_all(version: str) -> None:
    streams = _dunder_all(_parse(version, "torch_npu.npu.streams"))
    assert {"Stream", "Event", "SyncLaunchStream", "ExternalStream", "ExternalEvent"} <= streams
    graphs = _dunder_all(_parse(version, "torch_npu.npu.graphs"))
    assert {
        "NPUGraph", "graph", "graph_task_group_begin", "graph_task_group_end",
        "graph_task_update_begin", "graph_task_update_end", "super_kernel_scope_begin",
        "super_kernel_scope_end",
    } <= graphs  # fmt: skip


def _calls(node: ast.AST) -> list[str]:
    names = []
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            names.append(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def test_behaviour_the_wrappers_rely_on(version: str) -> None:
    # Event.record/wait default to torch_npu.npu.current_stream(): the guard resolves it the
    # same way and passes it on.
    for point in NPU_POINTS:
        if point.kind == "event":
            assert "current_stream" in _calls(_definition(version, point))
        if point.kind == "wait_stream":  # records on the argument first, then waits
            calls = _calls(_definition(version, point))
            assert calls.index("wait_event") < calls.index("record_event")  # outer call first
    # current_stream() builds its Stream from _npu_getCurrentStream's (id, device, type).
    current = _top(_parse(version, "torch_npu.npu.utils"), "current_stream")
    assert current is not None and "_npu_getCurrentStream" in _calls(current)
    # graph.__enter__ enters the stream context before capture_begin: hence the early check.
    cls = _top(_parse(version, "torch_npu.npu.graphs"), "graph")
    assert isinstance(cls, ast.ClassDef)
    enter, init = _member(cls, "__enter__"), _member(cls, "__init__")
    assert enter is not None and init is not None
    calls = _calls(enter)
    assert calls.index("__enter__") < calls.index("capture_begin")
    assert "capture_stream" in ast.unparse(init)
    # ExternalStream(stream_ptr, device=None, **kwargs) forwards stream_ptr to Stream.__new__.
    external = _top(_parse(version, "torch_npu.npu.streams"), "ExternalStream")
    assert isinstance(external, ast.ClassDef)
    new = _member(external, "__new__")
    assert new is not None and new.args.kwarg is not None
    assert "stream_ptr=stream_ptr" in ast.unparse(new)


@pytest.fixture(scope="module")
def library(version: str) -> Iterator[bytes]:
    try:
        yield _npu_wheel.read_member(version, "torch_npu/lib/libtorch_npu.so")
    except _npu_wheel.WheelUnavailable as exc:  # pragma: no cover - network
        if _npu_wheel.offline():
            pytest.skip(str(exc))
        pytest.fail(str(exc), pytrace=False)


def _fragments(text: str) -> list[str]:
    """The literal pieces torch_npu's C++ concatenates into ``text``."""
    for suffix in _SUFFIXES:
        if text.startswith(_PREFIX) and text.endswith(suffix):
            return [_PREFIX, text[len(_PREFIX) : -len(suffix)], suffix]
    return [text]


def _natives() -> set[str]:
    texts = {p.native for p in POINTS if p.native}
    texts |= {NATIVE_PRIORITY, NATIVE_SYNC_LAUNCH}
    texts.add(
        "External NPU stream is not supported in ProcessGroupLCCL::collective. "
        "This path requires a torch_npu-managed current stream."
    )
    return texts


@pytest.mark.parametrize("text", sorted(_natives()))
def test_native_strings_are_in_the_library(library: bytes, text: str) -> None:
    for fragment in _fragments(text):
        assert fragment.encode() in library, f"{fragment!r} not in libtorch_npu.so"


def test_torch_side_patch_points_exist() -> None:
    torch = pytest.importorskip("torch", reason=NO_TORCH)
    import torch.distributed as dist

    assert callable(torch.Tensor.record_stream)
    for point in POINTS:
        if point.owners and point.owners[0] == "torch.distributed":
            assert callable(getattr(dist, point.attr, None)), point.attr


def test_codes_exist_in_the_contract_table() -> None:
    assert {p.code for p in POINTS} <= set(RULES)


def test_contract_notices_a_missing_method(tmp_path: Path, monkeypatch: Any) -> None:
    """The checks above can fail: a wheel without Stream.query is caught."""
    source = (_tree(VERSIONS[0]) / "torch_npu/npu/streams.py").read_text(encoding="utf-8")
    broken = source.replace("    def query(self):", "    def renamed_query(self):", 1)
    assert broken != source
    fake = tmp_path / "torch_npu" / "npu"
    fake.mkdir(parents=True)
    (fake / "streams.py").write_text(broken)
    monkeypatch.setattr(_npu_wheel, "python_tree", lambda version: tmp_path)
    _tree.cache_clear()
    _parse.cache_clear()
    try:
        point = next(p for p in NPU_POINTS if p.defined_in.endswith("Stream.query"))
        with pytest.raises(AssertionError, match=r"Stream\.query is missing"):
            _definition("broken", point)
    finally:
        _tree.cache_clear()
        _parse.cache_clear()


# --- issue 17: every name the hazard wrappers rely on -------------------------------------------

HAZARD_NPU_POINTS = [p for p in HAZARD_POINTS if p.defined_in.startswith("torch_npu")]


@pytest.mark.parametrize("point", HAZARD_NPU_POINTS, ids=[p.defined_in for p in HAZARD_NPU_POINTS])
def test_hazard_points_are_defined_and_exported(version: str, point: Point) -> None:
    node = _definition(version, point)
    params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    assert tuple(params[: len(point.params)]) == point.params, (version, point.defined_in, params)
    npu = _parse(version, "torch_npu.npu")
    name = point.defined_in.split(":")[1].split(".")[0]
    assert name in _exports(npu) and name in _dunder_all(npu), f"{version}: torch_npu.npu.{name}"


def test_stream_switches_the_hazard_wrappers_see(version: str) -> None:
    utils = _parse(version, "torch_npu.npu.utils")
    # set_stream hands the whole stream to torch_npu._C._npu_setStream, looked up on the module
    # at call time: the guard's wrapper there sees every set_stream, also one bound before the
    # checks armed (issue 31), and when it returns, the stream is current.
    set_stream = _top(utils, "set_stream")
    assert set_stream is not None
    assert "torch_npu._C._npu_setStream(" in ast.unparse(set_stream)
    # torch.npu.stream(s) is StreamContext, which switches through torch.npu.set_stream.
    context = _top(utils, "StreamContext")
    assert isinstance(context, ast.ClassDef)
    for method in ("__enter__", "__exit__"):
        body = _member(context, method)
        assert body is not None and "torch.npu.set_stream" in ast.unparse(body), method
    # ``with stream:`` is torch.Stream's own __enter__/__exit__: torch_npu's Python Stream class
    # inherits them (the guard shadows them on that class and deletes its wrappers at uninstall).
    streams = _parse(version, "torch_npu.npu.streams")
    stream = _top(streams, "Stream")
    assert isinstance(stream, ast.ClassDef)
    assert _member(stream, "__enter__") is None and _member(stream, "__exit__") is None
    # SyncLaunchStream is not a Stream: it inherits the C context manager on its own.
    sync_launch = _top(streams, "SyncLaunchStream")
    assert isinstance(sync_launch, ast.ClassDef)
    assert [ast.unparse(base) for base in sync_launch.bases] == ["torch_npu._C._NPUStreamBase"]
    assert _member(sync_launch, "__enter__") is None and _member(sync_launch, "__exit__") is None
    # The raw reads the copy checks use: current_stream()/current_device() are built on them.
    current = _top(utils, "current_stream")
    device = _top(utils, "current_device")
    assert current is not None and "_npu_getCurrentStream" in _calls(current)
    assert device is not None and "_npu_getDevice" in _calls(device)
    assert "device_count" in _exports(_parse(version, "torch_npu.npu"))


def test_npu_and_cuda_tensor_methods_reach_tensor_to(version: str) -> None:
    # torch_npu asks torch to generate Tensor.npu (backend.py), and transfer_to_npu rebinds
    # Tensor.cuda to it: both end in self.to(...), the guard's wrapper.
    backend = ast.unparse(_parse(version, "torch_npu._init.registry.backend"))
    assert "generate_methods_for_privateuse1_backend" in backend and "for_tensor=True" in backend
    transfer = ast.unparse(_parse(version, "torch_npu.contrib.transfer_to_npu"))
    assert "torch.Tensor.cuda = torch.Tensor.npu" in transfer


def test_replay_calls_the_c_graph(version: str) -> None:
    graph = _top(_parse(version, "torch_npu.npu.graphs"), "NPUGraph")
    assert isinstance(graph, ast.ClassDef)
    replay = _member(graph, "replay")
    assert replay is not None and "replay" in _calls(replay)


def _hazard_natives() -> list[str]:
    apis = ("NPUEvent::record", "NPUEvent::block", "LaunchRecordEventTask", "LaunchWaitEventTask")
    return [native_not_supported(api) for api in apis]


@pytest.mark.parametrize("text", _hazard_natives())
def test_hazard_native_strings_are_in_the_library(library: bytes, text: str) -> None:
    for fragment in _fragments(text):
        assert fragment.encode() in library, f"{fragment!r} not in libtorch_npu.so"


# The torch side: the installed torch's Python sources and stubs, read, not imported.


@cache
def _torch_source(relative: str) -> str:
    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.submodule_search_locations, "torch is not installed"
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    assert path.exists(), f"torch: {relative} is missing"
    return path.read_text(encoding="utf-8")


def _torch_tree(relative: str) -> ast.Module:
    return ast.parse(_torch_source(relative))


def test_backward_and_grad_share_engine_run_backward() -> None:
    autograd = _torch_tree("autograd/__init__.py")
    imported = {
        alias.name
        for node in autograd.body
        if isinstance(node, ast.ImportFrom) and node.module == "graph"
        for alias in node.names
    }
    assert "_engine_run_backward" in imported  # a module global the guard can replace
    for name in ("backward", "grad"):  # the implementation: the last def (after @overloads)
        defs = [n for n in autograd.body if isinstance(n, ast.FunctionDef) and n.name == name]
        assert defs and "_engine_run_backward" in _calls(defs[-1]), name
    engine = _top(_torch_tree("autograd/graph.py"), "_engine_run_backward")
    assert isinstance(engine, ast.FunctionDef) and engine.args.args[0].arg == "t_outputs"
    assert "_execution_engine.run_backward" in ast.unparse(engine)


def test_torch_names_the_switch_and_copy_wrappers_use() -> None:
    accelerator = _top(_torch_tree("accelerator/__init__.py"), "set_stream")
    assert isinstance(accelerator, ast.FunctionDef)
    assert [a.arg for a in accelerator.args.args] == ["stream"]
    generated = ast.unparse(_torch_tree("utils/backend_registration.py"))
    assert "non_blocking=non_blocking" in generated and "return self.to(" in generated
    stubs = _torch_source("_C/__init__.pyi")
    for text in (
        "def copy_(self, other: Tensor, non_blocking: _bool = False)",
        "def is_pinned(self",
        "def _sequence_nr(self)",
        "def __enter__(self) -> Self",
    ):
        assert text in stubs, text
    assert "def _get_sequence_nr() -> int" in _torch_source("_C/_autograd.pyi")
    storage = ast.unparse(_torch_tree("storage.py"))
    assert "class UntypedStorage(torch._C.StorageBase" in storage


def test_hazard_codes_are_rows_of_the_table() -> None:
    assert {p.code for p in HAZARD_POINTS} <= set(RULES)
    assert RULES["XST202"].opt_in  # the guard checks it only when selected, like the linter
