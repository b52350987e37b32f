"""The armed copy checks on NPU tensors as torch_npu makes them: plain ``torch.Tensor``s.

On hardware an NPU tensor has no ``__torch_function__``, so ``Tensor.to`` / ``copy_`` on it take
the wrappers' fast path (issue 40: decided in the wrapper, the usual spellings parsed once),
which the simulated NPU tensors (a Python subclass with its own ``__torch_function__``) never
reach. Here the guard's wrappers run around a recording kernel on tensors that report an NPU
device as a real one does (class attributes, torch function disabled), as
``benchmarks/bench_guard.py`` times them: each refusal and each pass, called twice (the second
call finds its spelling parsed), in an external region on npu:0 and outside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError

HANDLE = 0x7A00_0000


def _on(torch: Any, index: int | None) -> Any:
    """A 4-element tensor reporting ``npu:<index>`` (None: the host) with no
    ``__torch_function__``, as a plain tensor answers ``device`` / ``is_cpu`` in C."""
    if index is None:
        return torch.ones(4)

    class PlainNPU(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl
        device = torch.device("npu", index)
        is_cpu = False

    return torch.ones(4).as_subclass(PlainNPU)


class Armed:
    def __init__(self, torch: Any, npu: Any) -> None:
        from extstream_guard import _state, hazards
        from extstream_guard.patches import HAZARD_POINTS

        self.torch, self.npu, self.calls = torch, npu, [0]
        #: What the kernel was handed, per call: ``(args, kwargs)`` after the tensor.
        self.handed: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.ext = npu.ExternalStream(HANDLE)  # arms the checks

        def kernel(self_: Any, *args: Any, **kwargs: Any) -> None:
            self.calls[0] += 1
            self.handed.append((args, kwargs))

        to_point, copy_point = (
            next(p for p in HAZARD_POINTS if p.kind == kind) for kind in ("copy_to", "copy_")
        )
        session = _state.session
        self.to = hazards.make_hazard_wrapper(to_point, kernel, session)  # type: ignore[arg-type]
        self.copy_ = hazards.make_hazard_wrapper(copy_point, kernel, session)  # type: ignore[arg-type]


@pytest.fixture
def armed(sim: Any) -> Iterator[Armed]:
    import torch

    extstream_guard.install()
    npu = sim.torch_npu.npu
    try:
        yield Armed(torch, npu)
    finally:
        npu.set_stream(npu.default_stream())


def _f16(a: Armed) -> Any:
    return a.torch.float16


#: (tensor's device, call): what passes whatever stream is current.
PASS: dict[str, tuple[int, Callable[[Armed, Any], Any]]] = {
    "to(dtype)": (0, lambda a, t: a.to(t, _f16(a))),
    "to('cpu')": (0, lambda a, t: a.to(t, "cpu")),
    "to(device('cpu'))": (0, lambda a, t: a.to(t, a.torch.device("cpu"))),
    "to('cpu', non_blocking=False)": (0, lambda a, t: a.to(t, "cpu", non_blocking=False)),
    "to('npu:0') on npu:0": (0, lambda a, t: a.to(t, "npu:0")),
    "to('npu') on npu:0": (0, lambda a, t: a.to(t, "npu")),
    "to(0) on npu:0": (0, lambda a, t: a.to(t, 0)),
    "to('cpu', float64)": (0, lambda a, t: a.to(t, "cpu", a.torch.float64)),
    "copy_(host)": (0, lambda a, t: a.copy_(t, _on(a.torch, None))),
    "copy_(npu:0)": (0, lambda a, t: a.copy_(t, _on(a.torch, 0))),
    "copy_(host, non_blocking=False)": (
        0, lambda a, t: a.copy_(t, _on(a.torch, None), non_blocking=False),
    ),
}  # fmt: skip
#: (tensor's device, call, code): refused while npu:0's current stream is external.
REFUSED: dict[str, tuple[int, Callable[[Armed, Any], Any], str]] = {
    "npu:0 to('npu:1')": (0, lambda a, t: a.to(t, "npu:1"), "XST112"),
    "npu:1 to('npu:0')": (1, lambda a, t: a.to(t, "npu:0"), "XST112"),
    "npu:1 to('npu') [current: npu:0]": (1, lambda a, t: a.to(t, "npu"), "XST112"),
    "npu:1 to(device('npu', 0))": (1, lambda a, t: a.to(t, a.torch.device("npu", 0)), "XST112"),
    "npu:0 copy_(npu:1)": (0, lambda a, t: a.copy_(t, _on(a.torch, 1)), "XST112"),
    "npu:1 copy_(npu:0)": (1, lambda a, t: a.copy_(t, _on(a.torch, 0)), "XST112"),
    "to('cpu', non_blocking=True)": (
        0, lambda a, t: a.to(t, "cpu", non_blocking=True), "XST201",
    ),
    "to(device('cpu'), non_blocking=True)": (
        0, lambda a, t: a.to(t, a.torch.device("cpu"), non_blocking=True), "XST201",
    ),
    "to('cpu', None, True)": (0, lambda a, t: a.to(t, "cpu", None, True), "XST201"),
}  # fmt: skip


def test_the_tensors_take_the_fast_path(armed: Armed) -> None:
    """What the cases stand for: no ``__torch_function__`` to hand the call to."""
    tensor = _on(armed.torch, 1)
    assert not armed.torch._C._has_torch_function_unary(tensor)
    assert tensor.device == armed.torch.device("npu", 1) and not tensor.is_cpu


@pytest.mark.parametrize("region", [True, False], ids=["in-region", "outside"])
@pytest.mark.parametrize("case", PASS)
def test_what_is_no_hazard_passes(armed: Armed, case: str, region: bool) -> None:
    index, call = PASS[case]
    tensor = _on(armed.torch, index)
    if region:
        armed.npu.set_stream(armed.ext)
    for _ in range(2):
        call(armed, tensor)
    assert armed.calls == [2]


@pytest.mark.parametrize("case", REFUSED)
def test_each_hazard_is_refused_in_the_region_and_passes_outside(armed: Armed, case: str) -> None:
    index, call, code = REFUSED[case]
    tensor = _on(armed.torch, index)
    call(armed, tensor)  # managed streams: no hazard
    assert armed.calls == [1]
    armed.npu.set_stream(armed.ext)
    for _ in range(2):
        with pytest.raises(ExternalStreamError, match=rf"\[{code}\]"):
            call(armed, tensor)
    assert armed.calls == [1]  # the kernel never ran


#: Calls as spelled, ``(positional after the tensor, keywords)``: the wrappers hand the usual
#: ones to the kernel without rebuilding ``*args`` / ``**kwargs`` (issue 40), the rest as is.
SPELLINGS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("cpu",), {}),
    (("cpu",), {"non_blocking": False}),
    (("cpu",), {"non_blocking": True}),
    (("npu:0",), {}),
    (("npu:0",), {"non_blocking": True}),
    (("npu:1",), {"non_blocking": False}),
    (("cpu", None, True), {}),
    (("cpu",), {"copy": True}),
    (("cpu",), {"non_blocking": True, "copy": True}),
    ((), {"device": "cpu", "non_blocking": True}),
    ((), {"first": 1}),  # not a parameter of to(): torch's to refuse, not the wrapper's
    ((0,), {}),
]


@pytest.mark.parametrize("spelling", range(len(SPELLINGS)))
def test_the_kernel_gets_the_arguments_as_they_were_given(armed: Armed, spelling: int) -> None:
    """Outside any region (every call passes): ``Tensor.to`` and ``copy_`` reach the wrapped
    method with the same positional arguments and keywords, in the fast path and out of it."""
    args, kwargs = SPELLINGS[spelling]
    tensor = _on(armed.torch, 0)
    for _ in range(2):  # the second finds its spelling parsed
        armed.to(tensor, *args, **kwargs)
    assert armed.handed == [(args, kwargs)] * 2
    armed.handed.clear()
    source = _on(armed.torch, None)
    copies: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((source,), {}),
        ((source, True), {}),
        ((source,), {"non_blocking": True}),
        ((), {"src": source}),
    ]
    for call_args, call_kwargs in copies:
        armed.copy_(tensor, *call_args, **call_kwargs)
        assert armed.handed.pop() == (call_args, call_kwargs)
    assert armed.to(tensor, armed.torch.float16, non_blocking=True) is None
    assert armed.handed == [((armed.torch.float16,), {"non_blocking": True})]


def test_the_parsed_spellings_stay_bounded_and_agree(armed: Armed, monkeypatch: Any) -> None:
    """The spellings parsed once (and those of them that name the host) are dropped together
    when the cache is full: a spelling parsed again is decided as the first time."""
    from extstream_guard import _copies

    monkeypatch.setattr(_copies, "_MAX_PARSED", 2)
    _copies._parsed_devices.clear()
    _copies._host_spellings.clear()
    tensor = _on(armed.torch, 0)
    armed.npu.set_stream(armed.ext)
    for spelling in ("cpu", "npu:0", "npu", "cpu"):
        armed.to(tensor, spelling)
        assert _copies._host_spellings <= set(_copies._parsed_devices)
        assert len(_copies._parsed_devices) <= 2
        with pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
            armed.to(tensor, "cpu", non_blocking=True)
    assert "cpu" in _copies._host_spellings
    assert armed.calls == [4]
