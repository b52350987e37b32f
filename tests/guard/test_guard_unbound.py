"""Issue 40, item 7: the stream methods called unbound (``torch.npu.Stream.query(ext)``).

torch_npu 2.13's ``streams.py`` builds ``ExternalStream(Stream)``, ``Stream(_NPUStreamBase)`` and
``SyncLaunchStream(_NPUStreamBase)`` over the C type ``torch_npu._C._NPUStreamBase``, whose base
is ``torch.Stream`` (``tp_base``); the simulation builds the same hierarchy (checked against the
wheel's file here). Every Python class of it that an unbound call can name is guarded, for every
refused method; the two C types (``_NPUStreamBase``, ``torch.Stream``) refuse attribute
assignment, so their unbound methods are not the guard's: torch_npu refuses those calls itself
at once (``NPUStream::synchronize`` through ``NPUGuardImpl``; docs/guard.md, Limitations).
"""

from __future__ import annotations

import ast
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError
from tests import _npu_wheel

HANDLE = 0x7A00_0000

#: method -> (the code the guard gives, the extra arguments: ``e`` an event, ``s`` a stream).
METHODS = {
    "synchronize": ("XST101", ""),
    "query": ("XST102", ""),
    "record_event": ("XST103", ""),
    "wait_event": ("XST104", "e"),
    "wait_stream": ("XST104", "s"),
}
#: Every Python class an unbound call can name: torch_npu's, where ``torch.npu`` exports them,
#: and the guard's own subclass.
OWNERS = (
    "torch.npu.Stream",
    "torch.npu.ExternalStream",
    "torch.npu.SyncLaunchStream",
    "torch_npu.npu.streams.Stream",
    "extstream_guard.ExternalStream",
)


def _owner(sim: Any, path: str) -> Any:
    if path.startswith("torch.npu."):
        return getattr(sim.torch_npu.npu, path.rpartition(".")[2])
    if path.startswith("torch_npu.npu.streams."):
        return getattr(sim.torch_npu.npu.streams, path.rpartition(".")[2])
    return extstream_guard.ExternalStream


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("owner", OWNERS)
def test_each_unbound_spelling_is_refused(sim: Any, owner: str, method: str) -> None:
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)
    code, extra = METHODS[method]
    args = {"": (), "e": (npu.Event(),), "s": (npu.Stream(),)}[extra]
    with pytest.raises(ExternalStreamError) as caught:
        getattr(_owner(sim, owner), method)(ext, *args)
    assert caught.value.code == code


@pytest.mark.parametrize("method", METHODS)
def test_an_ordinary_stream_passes_unbound(sim: Any, method: str) -> None:
    npu = sim.torch_npu.npu
    extstream_guard.install()
    npu.ExternalStream(HANDLE)  # armed
    _code, extra = METHODS[method]
    args = {"": (), "e": (npu.Event(),), "s": (npu.Stream(),)}[extra]
    getattr(npu.Stream, method)(npu.Stream(), *args)  # no error


def test_the_simulated_hierarchy_is_the_wheel_s(sim: Any) -> None:
    """The bases ``streams.py`` gives each class, and the C base under them: an immutable type
    whose base is ``torch.Stream`` (so ``torch.Stream.synchronize(ext)`` is a C call the guard
    cannot wrap, as on the hardware)."""
    import torch

    from tests.guard._wheels import wheel_tree

    source = (wheel_tree(_npu_wheel.DEFAULT_VERSION) / "torch_npu/npu/streams.py").read_text()
    bases = {
        node.name: [ast.unparse(base) for base in node.bases]
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    }
    assert bases["Stream"] == ["torch_npu._C._NPUStreamBase"]
    assert bases["SyncLaunchStream"] == ["torch_npu._C._NPUStreamBase"]
    assert bases["ExternalStream"] == ["Stream"]
    npu, c_module = sim.torch_npu.npu, sim.torch_npu._C
    assert npu.Stream.__bases__ == (c_module._NPUStreamBase,)
    assert npu.SyncLaunchStream.__bases__ == (c_module._NPUStreamBase,)
    assert npu.ExternalStream.__bases__ == (npu.Stream,)
    assert c_module._NPUStreamBase.__bases__ == (torch.Stream,)
    for c_type in (c_module._NPUStreamBase, torch.Stream):
        with pytest.raises(TypeError, match="immutable type"):
            c_type.synchronize = None  # what a guard patching the C types would meet


def test_the_c_types_unbound_stay_torch_npu_s_refusal(sim: Any) -> None:
    """``_NPUStreamBase.synchronize(ext)`` reaches torch_npu's check directly: its own
    ``RuntimeError`` (X01), not the guard's error, and nothing runs on the stream."""
    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(HANDLE)
    with pytest.raises(RuntimeError, match="NPUStream::synchronize") as caught:
        sim.torch_npu._C._NPUStreamBase.synchronize(ext)
    assert not isinstance(caught.value, ExternalStreamError)
