"""install / uninstall / installed: exact restore, idempotence, threads, modes, reach."""

from __future__ import annotations

import importlib
import threading
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, ExternalStreamWarning
from extstream_guard.install import patched, resolve
from extstream_guard.patches import POINTS


def _owners() -> list[Any]:
    owners: list[Any] = []
    for point in POINTS:
        for path in point.owners:
            owner = resolve(path)
            if owner is not None and all(owner is not seen for seen in owners):
                owners.append(owner)
    return owners


def _snapshot(owners: list[Any]) -> list[dict[str, Any]]:
    return [dict(vars(owner)) for owner in owners]


def _same(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    return all(a.keys() == b.keys() and all(a[k] is b[k] for k in a) for a, b in zip(before, after))


def test_uninstall_restores_every_owner_exactly(sim: Any) -> None:
    import torch

    owners = _owners()
    assert torch.Tensor in owners and sim.torch_npu.npu in owners
    before = _snapshot(owners)
    raw_new = vars(sim.torch_npu.npu.ExternalStream)["__new__"]
    extstream_guard.install()
    assert "record_stream" in vars(torch.Tensor)  # inherited before: set on torch.Tensor now
    assert isinstance(vars(sim.torch_npu.npu.ExternalStream)["__new__"], staticmethod)
    assert not _same(before, _snapshot(owners))
    extstream_guard.uninstall()
    assert _same(before, _snapshot(owners))
    assert "record_stream" not in vars(torch.Tensor)
    assert vars(sim.torch_npu.npu.ExternalStream)["__new__"] is raw_new
    assert patched() == []


def test_install_is_idempotent_and_switches_mode(sim: Any) -> None:
    extstream_guard.install()
    first = [(id(owner), attr, vars(owner)[attr]) for owner, attr in patched()]
    extstream_guard.install("warn")
    assert extstream_guard.get_mode() == "warn"
    assert [(id(owner), attr, vars(owner)[attr]) for owner, attr in patched()] == first
    extstream_guard.install("off")
    assert extstream_guard.get_mode() == "off" and patched() == []


def test_installed_context_manager_nests_and_restores(sim: Any) -> None:
    with extstream_guard.installed("warn"):
        with extstream_guard.installed("raise"):
            assert extstream_guard.get_mode() == "raise"
        assert extstream_guard.get_mode() == "warn"
    assert extstream_guard.get_mode() == "off" and patched() == []


def test_bad_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="raise, warn, off"):
        extstream_guard.install("loud")


def test_concurrent_install_uninstall_leaves_a_consistent_state(sim: Any) -> None:
    owners = _owners()
    before = _snapshot(owners)
    errors: list[BaseException] = []

    def churn() -> None:
        try:
            for i in range(30):
                extstream_guard.install("raise" if i % 2 else "warn")
                with extstream_guard.installed():
                    pass
                extstream_guard.uninstall()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=churn) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    extstream_guard.uninstall()
    assert _same(before, _snapshot(owners))


def test_the_guard_is_per_process_but_the_current_stream_is_per_thread(env: Any) -> None:
    extstream_guard.install()
    ext, seen = env.ext(), []

    def other_thread() -> None:
        env.npu.Event().record()  # this thread's current stream is the default one
        seen.append("ok")

    with env.current(ext):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        with pytest.raises(ExternalStreamError):
            env.npu.Event().record()
    assert seen == ["ok"]


def test_classes_imported_before_install_are_guarded(env: Any) -> None:
    from torch_npu.npu import Event, ExternalStream, Stream  # bound before install

    extstream_guard.install()
    with pytest.raises(ExternalStreamError) as info:
        ExternalStream(0)
    assert info.value.code == "XST001"
    ext = ExternalStream(env.pointer(0))
    with pytest.raises(ExternalStreamError):
        ext.synchronize()
    with pytest.raises(ExternalStreamError):
        Event().record(ext)
    with pytest.raises(ExternalStreamError):
        Stream().wait_stream(ext)


def test_functions_imported_before_install_are_a_documented_gap(env: Any) -> None:
    from torch_npu.npu import graph_task_group_begin  # bound before install: not patchable

    extstream_guard.install()
    with pytest.raises(RuntimeError, match="graph_task_group_begin") as info:
        graph_task_group_begin(env.ext())
    assert not isinstance(info.value, ExternalStreamError)


def test_one_wrapper_for_a_function_exported_from_two_namespaces(env: Any) -> None:
    import torch.distributed as dist

    extstream_guard.install()
    assert dist.all_reduce is dist.distributed_c10d.all_reduce
    assert env.npu.graph_task_group_begin is env.npu.graphs.graph_task_group_begin
    assert env.npu.graph_task_group_begin.__wrapped__.__module__ == "torch_npu.npu.graphs"


def test_the_c_base_types_are_immutable_and_never_patched(sim: Any) -> None:
    C = sim.C
    bases = (C._NPUStreamBase, C._NPUEventBase, C._NPUGraph)
    before = [dict(vars(base)) for base in bases]
    # CPython's own check for C types (a heap type's message names it without its module).
    with pytest.raises(TypeError, match=r"attribute of immutable type '(torch_npu\._C\.)?_NPU"):
        C._NPUStreamBase.synchronize = lambda self: None
    assert type(C._NPUStreamBase) is type and type(sim.torch_npu.npu.Stream) is type
    with pytest.raises(TypeError, match="immutable type"):
        del C._NPUEventBase.record
    extstream_guard.install()
    assert [dict(vars(base)) for base in bases] == before
    assert all(owner not in bases for owner, _ in patched())


def test_auto_import_honours_the_environment(sim: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import extstream_guard.auto as auto

    monkeypatch.setenv("EXTSTREAM_GUARD", "warn")
    importlib.reload(auto)
    assert extstream_guard.get_mode() == "warn"
    monkeypatch.setenv("EXTSTREAM_GUARD", "OFF")
    importlib.reload(auto)
    assert extstream_guard.get_mode() == "off"
    monkeypatch.delenv("EXTSTREAM_GUARD")
    importlib.reload(auto)
    assert extstream_guard.get_mode() == "raise"
    monkeypatch.setenv("EXTSTREAM_GUARD", "sometimes")
    with pytest.raises(ValueError, match="EXTSTREAM_GUARD"):
        importlib.reload(auto)


def test_is_external_uses_the_id_encoding_not_the_class(env: Any) -> None:
    import torch

    ext = env.ext()
    assert extstream_guard.is_external(ext)
    assert extstream_guard.is_external(env.npu.Stream(stream_ptr=env.pointer(2)))
    generic = torch.Stream(stream_id=ext.stream_id, device_index=0, device_type=20)
    assert extstream_guard.is_external(generic)
    with env.current(ext):
        assert extstream_guard.current_is_external()
        assert type(env.npu.current_stream()) is env.npu.Stream
        assert extstream_guard.is_external(env.npu.current_stream())
    assert not extstream_guard.current_is_external()
    assert not extstream_guard.is_external(env.managed())
    assert not extstream_guard.is_external(env.npu.ExternalStream(0))  # a pool stream!
    assert not extstream_guard.is_external(None)
    assert not extstream_guard.is_external(object())
    cpu = torch.Stream(stream_id=1 << 30, device_index=-1, device_type=0)
    assert not extstream_guard.is_external(cpu)

    class Odd:  # a stream-like object whose id is not a number: not a stream, no error
        device_type = generic.device_type
        stream_id = str(ext.stream_id)

    assert not extstream_guard.is_external(Odd())


def test_guarded_class_works_without_install(env: Any) -> None:
    guarded = extstream_guard.ExternalStream
    real = env.npu.ExternalStream
    assert guarded is extstream_guard.ExternalStream  # built once
    assert issubclass(guarded, real) and guarded is not real
    assert repr(guarded) == repr(real) and guarded.__doc__ == real.__doc__
    ext = guarded(env.pointer(0))
    assert isinstance(ext, real) and ext == real(env.pointer(0))
    assert extstream_guard.get_mode() == "off"
    with pytest.raises(ExternalStreamError) as info:
        ext.synchronize()
    assert info.value.code == "XST101"
    with pytest.raises(ExternalStreamError):
        ext.wait_stream(env.managed())
    with pytest.raises(ExternalStreamError):
        guarded(0)


def test_guarded_class_follows_the_installed_mode(env: Any) -> None:
    guarded = extstream_guard.ExternalStream
    with (
        extstream_guard.installed("warn"),
        pytest.warns(ExternalStreamWarning),
        pytest.raises(RuntimeError, match="NPUStream::synchronize"),
    ):
        guarded(env.pointer(0)).synchronize()


def test_warnings_point_at_the_calling_line(env: Any) -> None:
    ext = env.ext()
    extstream_guard.install("warn")
    with pytest.warns(ExternalStreamWarning) as caught, pytest.raises(RuntimeError):
        ext.synchronize()
    assert caught[0].filename == __file__
