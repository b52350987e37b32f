"""What the guard tells the user: warnings at the user's line, errors torch_npu raises first,
and where the pytest plugin's mode came from."""

from __future__ import annotations

import contextlib
import ctypes
import os
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, ExternalStreamWarning, pytest_plugin

#: Calls that warn in warn mode, reaching the guard through different paths: compiled and
#: generic wrappers, constructors, torch.distributed functions and ProcessGroup methods
#: (both guarded, the method reached through the function: still one warning per call),
#: Work.wait, and torch_npu code calling a guarded method (wait_stream -> Event.record).
WARNING_CALLS = {
    "synchronize": lambda env, ext, t: ext.synchronize(),
    "ExternalStream(0)": lambda env, ext, t: env.npu.ExternalStream(0),
    "Stream(stream_ptr=0)": lambda env, ext, t: env.npu.Stream(stream_ptr=0),
    "wait_stream": lambda env, ext, t: env.managed().wait_stream(ext),
    "graph_task_group_begin": lambda env, ext, t: env.npu.graph_task_group_begin(ext),
    "all_reduce": lambda env, ext, t: _under(
        env, ext, lambda: env.dist.all_reduce(t, group=env.group)
    ),
    "group.allreduce": lambda env, ext, t: _under(env, ext, lambda: env.group.allreduce([t])),
    "barrier": lambda env, ext, t: _under(env, ext, lambda: env.dist.barrier(group=env.group)),
    "all_gather_uneven": lambda env, ext, t: _under(
        env, ext, lambda: env.tn.distributed.all_gather_into_tensor_uneven(t, t, group=env.group)
    ),
    "Work.wait": lambda env, ext, t: _wait_under(env, ext, t),
}  # fmt: skip


def _under(env: Any, ext: Any, call: Any) -> None:
    with env.current(ext):
        call()


def _wait_under(env: Any, ext: Any, tensor: Any) -> None:
    work = env.dist.all_reduce(tensor, group=env.group, async_op=True)
    with env.current(ext):
        work.wait()


@pytest.mark.parametrize("name", list(WARNING_CALLS))
def test_every_warning_points_at_the_users_line(env: Any, name: str) -> None:
    ext, tensor = env.ext(), env.tensor()
    extstream_guard.install("warn")
    # torch_npu's own error follows the warning: suppressed here.
    with (
        pytest.warns(ExternalStreamWarning) as caught,
        contextlib.suppress(RuntimeError, TypeError),
    ):
        WARNING_CALLS[name](env, ext, tensor)
    ours = [w for w in caught if issubclass(w.category, ExternalStreamWarning)]
    assert len(ours) == 1, [str(w.message) for w in ours]  # one refused call, one warning
    assert (ours[0].filename, ours[0].lineno) == (__file__, ours[0].lineno)


@pytest.mark.parametrize("mode", ["off", "raise", "warn"])
@pytest.mark.parametrize(
    "pointer", [lambda p: ctypes.c_void_p(p), lambda p: _Index(p), lambda p: float(p)],
    ids=["c_void_p", "__index__", "float"],
)  # fmt: skip
def test_a_non_integer_pointer_gets_torch_npus_type_error_in_every_mode(
    env: Any, mode: str, pointer: Any
) -> None:
    extstream_guard.install(mode)
    with pytest.raises(TypeError, match="argument 6 must be int") as info:
        env.npu.ExternalStream(pointer(env.pointer(0)))
    assert not isinstance(info.value, ExternalStreamError)
    with pytest.raises(TypeError, match="argument 6 must be int"):
        env.npu.Stream(stream_ptr=pointer(env.pointer(0)))


class _Index:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


@pytest.mark.parametrize("mode", ["off", "raise"])
def test_a_blank_scope_name_gets_torch_npus_error_under_an_external_stream(
    env: Any, mode: str
) -> None:
    extstream_guard.install(mode)
    with env.current(env.ext()), pytest.raises(RuntimeError, match="scope_name should be") as info:
        env.npu.super_kernel_scope_begin(" ")
    assert not isinstance(info.value, ExternalStreamError)


class _Config:
    """The two pytest config methods the plugin reads."""

    def __init__(self, option: str | None = None, ini: str = "") -> None:
        self.option, self.ini = option, ini

    def getoption(self, name: str) -> str | None:
        return self.option

    def getini(self, name: str) -> str:
        return self.ini


@pytest.mark.parametrize(
    ("config", "env_value", "source"),
    [
        (_Config(option="raise", ini="warn"), "warn", "--extstream-guard=raise"),
        (_Config(ini="raise"), "warn", "ini option extstream_guard = raise"),
        (_Config(), "raise", "environment variable EXTSTREAM_GUARD=raise"),
    ],
    ids=["flag", "ini", "env"],
)
def test_plugin_errors_name_where_the_mode_came_from(
    monkeypatch: pytest.MonkeyPatch, config: _Config, env_value: str, source: str
) -> None:
    monkeypatch.setenv("EXTSTREAM_GUARD", env_value)
    assert "torch_npu" not in os.environ.get("PYTHONPATH", "")
    with pytest.raises(pytest.UsageError) as info:  # no torch_npu in this process
        pytest_plugin.pytest_configure(config)
    assert source in str(info.value) and "extstream_guard needs torch_npu" in str(info.value)


@pytest.mark.parametrize(
    ("config", "env_value", "source"),
    [
        (_Config(ini="loud"), "", "ini option extstream_guard = loud"),
        (_Config(), "Sometimes", "environment variable EXTSTREAM_GUARD=Sometimes"),
    ],
    ids=["ini", "env"],
)
def test_plugin_names_the_source_of_a_bad_mode(
    monkeypatch: pytest.MonkeyPatch, config: _Config, env_value: str, source: str
) -> None:
    monkeypatch.setenv("EXTSTREAM_GUARD", env_value)
    with pytest.raises(pytest.UsageError, match="expected one of raise, warn, off") as info:
        pytest_plugin.pytest_configure(config)
    assert source in str(info.value)
