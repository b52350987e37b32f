"""torch.distributed as torch_npu serves it: base-class Work objects, ProcessGroup methods.

torch_npu's process groups are plain C++ ``ProcessGroup`` objects and its HCCL works reach
Python as plain ``torch.distributed.Work`` objects, exactly the type gloo's works have; the
simulation returns the same (``tests/guard/npusim/fake_dist.py``).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, ExternalStreamWarning
from extstream_guard.install import patched
from tests._skips import NO_TORCH

pytest.importorskip("torch", reason=NO_TORCH)  # fake_dist builds on torch.distributed
from tests.guard.npusim import fake_dist


@pytest.mark.parametrize("method", ["wait", "synchronize"])
def test_waiting_on_a_base_class_hccl_work_under_ext_is_refused(env: Any, method: str) -> None:
    extstream_guard.install()
    work = env.dist.all_reduce(env.tensor(), group=env.group, async_op=True)
    assert type(work) is env.dist.Work
    with env.current(env.ext()), pytest.raises(ExternalStreamError) as info:
        getattr(work, method)()
    assert info.value.code == "XST111" and info.value.operation == f"Work.{method}"
    getattr(work, method)()  # outside the external stream: fine


def test_other_works_of_the_same_class_are_not_checked(
    env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    extstream_guard.install()
    env.dist.all_reduce(env.tensor(), group=env.group, async_op=True)  # patches Work
    assert any(owner is env.dist.Work for owner, _ in patched())
    cpu_work = env.dist.all_reduce(env.torch.ones(4), group=env.cpu_group, async_op=True)
    assert type(cpu_work) is env.dist.Work
    lookups: list[Any] = []
    real = env.npu.current_stream
    with env.current(env.ext()):
        monkeypatch.setattr(env.npu, "current_stream", lambda *a: lookups.append(a) or real(*a))
        cpu_work.wait()  # a gloo work: no stream lookup, no error
        monkeypatch.undo()
    assert lookups == []


def test_work_patch_is_restored_exactly(env: Any) -> None:
    raw = {name: env.dist.Work.__dict__[name] for name in ("wait", "synchronize")}
    extstream_guard.install()
    env.dist.all_reduce(env.tensor(), group=env.group, async_op=True)
    assert env.dist.Work.__dict__["wait"] is not raw["wait"]
    extstream_guard.uninstall()
    assert {name: env.dist.Work.__dict__[name] for name in raw} == raw


@pytest.mark.parametrize("mode", ["off", "raise"])
@pytest.mark.parametrize(
    "call",
    [
        lambda env, t: env.group.allreduce([t]),
        lambda env, t: env.group.broadcast([t]),
        lambda env, t: env.group.barrier(),
        lambda env, t: env.group.send([t], 1, 0),
    ],
    ids=["allreduce", "broadcast", "barrier", "send"],
)
def test_process_group_methods_are_guarded(env: Any, mode: str, call: Any) -> None:
    tensor = env.tensor()
    extstream_guard.install(mode)
    with env.current(env.ext()), pytest.raises(RuntimeError) as info:
        call(env, tensor)
    assert isinstance(info.value, ExternalStreamError) is (mode == "raise")
    assert fake_dist.state(env.group).seq == (1 if mode == "off" else 0)


def test_process_group_methods_serve_managed_streams_and_gloo(env: Any) -> None:
    extstream_guard.install()
    tensor = env.tensor()
    env.group.allreduce([tensor]).wait()
    with env.current(env.ext()):
        env.cpu_group.allreduce([env.torch.ones(2)]).wait()
    assert fake_dist.state(env.group).calls == ["allreduce"]
    assert fake_dist.state(env.cpu_group).calls == ["allreduce"]


def test_xst111_says_the_counters_did_not_advance_when_the_guard_raised(env: Any) -> None:
    extstream_guard.install()
    with env.current(env.ext()), pytest.raises(ExternalStreamError) as info:
        env.dist.all_reduce(env.tensor(), group=env.group)
    message = str(info.value)
    assert fake_dist.state(env.group).seq == 0
    assert "have not advanced" in message and "already advanced" not in message


def test_xst111_in_warn_mode_says_what_the_call_will_do(env: Any) -> None:
    extstream_guard.install("warn")
    with (
        env.current(env.ext()),
        pytest.warns(extstream_guard.ExternalStreamWarning) as caught,
        pytest.raises(RuntimeError),
    ):
        env.dist.all_reduce(env.tensor(), group=env.group)
    assert "The call goes ahead: torch_npu advances" in str(caught[0].message)
    assert fake_dist.state(env.group).seq == 1


def test_a_method_reached_through_a_guarded_function_is_checked_once_and_later_calls_again(
    env: Any,
) -> None:
    """``dist.all_reduce`` ends in the guarded ``group.allreduce``: one warning for the call,
    and a later direct method call (same thread, after torch_npu's own error) still warns."""
    extstream_guard.install("warn")
    tensor = env.tensor()
    with env.current(env.ext()):
        for call in (
            lambda: env.dist.all_reduce(tensor, group=env.group),
            lambda: env.group.allreduce([tensor]),
        ):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with pytest.raises(RuntimeError):  # torch_npu's own error follows the warning
                    call()
            ours = [w for w in caught if issubclass(w.category, ExternalStreamWarning)]
            assert len(ours) == 1
