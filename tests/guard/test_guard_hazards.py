"""The guard's hazard checks (issue 17) over the simulated torch_npu.

G201 (XST201) pinned ``non_blocking`` copies, G112 (XST112) copies between NPUs, G203 (XST203)
backward across an external-stream boundary, G202 (XST202) graph replay: each positive next to
the traps of the same shape (pageable memory, ``.cpu()``, ``non_blocking=False``, managed
streams, NPU-to-NPU on one device, forward and backward under the same external stream), and
the checks armed only at the first external stream.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import extstream_guard
from extstream_guard import ExternalStreamError, ExternalStreamWarning
from extstream_guard._patching import patched, unwrap
from extstream_guard.patches import HAZARD_POINTS
from extstream_lint.contract import native_not_supported
from tests.guard.test_sim_hazards import run_program

HANDLE = 0x7A00_0000


class Ctx:
    """What a case needs: torch, torch.npu, the simulation module, one external stream."""

    def __init__(self, torch: Any, npu: Any, sim: Any, log: list[Any]) -> None:
        self.torch, self.npu, self.sim, self.log = torch, npu, sim, log
        self.ext = npu.ExternalStream(HANDLE)

    def pinned(self) -> Any:
        return self.torch.ones(4).pin_memory()

    def on_npu(self, device: int = 0, requires_grad: bool = False) -> Any:
        return self.sim.npu_tensor(device=device, requires_grad=requires_grad)


@pytest.fixture
def ctx(sim: Any) -> Iterator[Ctx]:
    import torch

    from tests.guard import npusim

    extstream_guard.install()
    yield Ctx(torch, sim.torch_npu.npu, npusim, sim.state.log)


def _defuse(*tensors: Any) -> None:
    """A copy the guard let through recorded the external stream: forget it before the free
    (the subprocess tests show the abort it would cause)."""
    from tests.guard.npusim import memory

    for tensor in tensors:
        block = memory.pinned_block(tensor)
        if block is not None:
            block.streams.clear()


def _hazard_attrs() -> set[tuple[int, str]]:
    return {(id(owner), attr) for owner, attr in patched() if attr in _ATTRS}


#: What arming patches: the copy, backward and replay points. The stream switches are patched
#: at install (issue 40: they arm the checks when a stream made before install becomes current).
SWITCH_KINDS = frozenset({"switch_raw", "switch_set", "switch_enter", "switch_exit"})
_ATTRS = {point.attr for point in HAZARD_POINTS if point.kind not in SWITCH_KINDS}
_SWITCHES = {point.attr for point in HAZARD_POINTS if point.kind in SWITCH_KINDS}


# --- arming -------------------------------------------------------------------------------------


def test_nothing_is_patched_before_the_first_external_stream(sim: Any) -> None:
    import torch

    npu = sim.torch_npu.npu
    owners = [torch.Tensor, torch.UntypedStorage, torch.autograd, npu, npu.Stream, npu.NPUGraph]
    before = [dict(vars(owner)) for owner in owners]
    extstream_guard.install()
    assert {attr for _, attr in patched()} >= _SWITCHES  # patched at install (issue 40)
    unarmed = [dict(vars(owner)) for owner in owners]
    npu.Stream()  # a managed stream arms nothing
    with npu.stream(npu.Stream()):
        torch.ones(4).pin_memory().to("npu", non_blocking=True)
    assert not _hazard_attrs()
    assert "to" not in vars(torch.Tensor) and "to" not in before[0]  # torch's C method
    assert all(a.keys() == b.keys() and all(a[k] is b[k] for k in a)
               for a, b in zip(unarmed, [dict(vars(owner)) for owner in owners]))  # fmt: skip
    ext = npu.ExternalStream(HANDLE)
    # opt-in XST202 is not selected; everything else is patched once, here
    assert {attr for _, attr in patched()} >= _ATTRS - {"replay"}
    wrapper = vars(torch.Tensor)["to"]
    assert unwrap(wrapper) is torch._C.TensorBase.to
    with npu.stream(ext):  # entering and leaving a region patches nothing (issue 31)
        with ext:
            pass
        assert vars(torch.Tensor)["to"] is wrapper
    assert vars(torch.Tensor)["to"] is wrapper
    assert {attr for owner, attr in patched() if owner is torch.UntypedStorage} == {"copy_"}
    extstream_guard.uninstall()
    after = [dict(vars(owner)) for owner in owners]
    assert all(a.keys() == b.keys() and all(a[k] is b[k] for k in a) for a, b in zip(before, after))


def test_armed_at_install_when_an_external_stream_is_current(sim: Any) -> None:
    import torch

    npu = sim.torch_npu.npu
    ext = npu.ExternalStream(HANDLE)  # made before the guard: not seen
    npu.set_stream(ext)
    try:
        extstream_guard.install()
        assert _hazard_attrs()
        with pytest.raises(ExternalStreamError) as info:
            torch.ones(4).pin_memory().to("npu", non_blocking=True)
        assert info.value.code == "XST201"
    finally:
        npu.set_stream(npu.default_stream())


def test_install_with_no_external_current_arms_nothing(sim: Any) -> None:
    npu = sim.torch_npu.npu
    npu.ExternalStream(HANDLE)  # exists, but made before install and never current
    extstream_guard.install()
    assert not _hazard_attrs()


SWITCHES: dict[str, Callable[[Any, Any], Any]] = {
    "set_stream": lambda npu, ext: npu.set_stream(ext),
    "stream()": lambda npu, ext: npu.stream(ext).__enter__(),
    "with ext": lambda npu, ext: ext.__enter__(),
    "torch.accelerator.set_stream": lambda npu, ext: __import__("torch").accelerator.set_stream(
        ext
    ),
    "set_stream bound before install": lambda npu, ext: BOUND["set_stream"](ext),
}
BOUND: dict[str, Any] = {}


@pytest.mark.parametrize("made", ["before-install", "in-an-earlier-installation"])
@pytest.mark.parametrize("switch", SWITCHES)
def test_a_stream_made_before_install_arms_when_it_becomes_current(
    sim: Any, switch: str, made: str
) -> None:
    """Issue 40, item 5: no constructor wrapper saw it made; making it current arms."""
    import torch

    npu = sim.torch_npu.npu
    BOUND["set_stream"] = npu.set_stream
    if made == "in-an-earlier-installation":
        with extstream_guard.installed():
            ext = npu.ExternalStream(HANDLE)
            assert _hazard_attrs()
    else:
        ext = npu.ExternalStream(HANDLE)
    extstream_guard.install()
    assert not _hazard_attrs()
    weight = _npu_weight()
    pinned = torch.ones(4).pin_memory()
    try:
        SWITCHES[switch](npu, ext)
        assert _hazard_attrs()
        with pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
            pinned.to("npu", non_blocking=True)  # went through to the abort before
        loss = (weight * 2).sum()
    finally:
        npu.set_stream(npu.default_stream())
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        loss.backward()


def _npu_weight() -> Any:
    from tests.guard import npusim

    return npusim.npu_tensor(requires_grad=True)


def test_a_managed_stream_made_current_arms_nothing(sim: Any) -> None:
    npu = sim.torch_npu.npu
    extstream_guard.install()
    stream = npu.Stream()
    npu.set_stream(stream)
    with npu.stream(npu.Stream()), stream:
        pass
    npu.set_stream(npu.default_stream())
    assert not _hazard_attrs()


def test_the_guarded_class_alone_arms_nothing(sim: Any) -> None:
    extstream_guard.ExternalStream(HANDLE)  # guarded without install(): no global patches
    assert not _hazard_attrs()


# --- G201: pinned non_blocking copies -------------------------------------------------------

Case = Callable[[Ctx], Any]


def _h2d(c: Ctx) -> Any:
    return c.pinned().to("npu", non_blocking=True)


def _h2d_device_object(c: Ctx) -> Any:
    return c.pinned().to(c.torch.device("npu", 0), non_blocking=True)


def _h2d_keyword_device(c: Ctx) -> Any:
    return c.pinned().to(device="npu:0", non_blocking=True)


def _h2d_positional(c: Ctx) -> Any:
    return c.pinned().to("npu", c.torch.float32, True)


def _h2d_npu(c: Ctx) -> Any:
    return c.pinned().npu(non_blocking=True)


def _h2d_like_other(c: Ctx) -> Any:
    return c.pinned().to(c.on_npu(), non_blocking=True)


def _d2h_to_cpu(c: Ctx) -> Any:
    return c.on_npu().to("cpu", non_blocking=True)


def _copy_into_npu(c: Ctx) -> Any:
    return c.on_npu().copy_(c.pinned(), non_blocking=True)


def _copy_into_pinned(c: Ctx) -> Any:
    return c.pinned().copy_(c.on_npu(), non_blocking=True)


def _copy_keywords(c: Ctx) -> Any:
    return c.on_npu().copy_(other=c.pinned(), non_blocking=True)


def _storage_copy(c: Ctx) -> Any:
    return c.sim.npu_storage(16).copy_(c.pinned().untyped_storage(), non_blocking=True)


PINNED_COPIES = {
    "to-npu": _h2d,
    "to-device-object": _h2d_device_object,
    "to-device-keyword": _h2d_keyword_device,
    "to-positional-non_blocking": _h2d_positional,
    "npu()": _h2d_npu,
    "to-like-npu-tensor": _h2d_like_other,
    "npu-to-cpu-result-is-pinned": _d2h_to_cpu,
    "copy_-into-npu": _copy_into_npu,
    "copy_-into-pinned": _copy_into_pinned,
    "copy_-keywords": _copy_keywords,
    "storage-copy_": _storage_copy,
}

#: The ways a thread makes the external stream current.
REGIONS: dict[str, Callable[[Ctx], Any]] = {
    "torch.npu.stream": lambda c: c.npu.stream(c.ext),
    "with-ext": lambda c: c.ext,
    "set_stream": lambda c: _SetStream(c, c.npu.set_stream),
    "accelerator.set_stream": lambda c: _SetStream(c, c.torch.accelerator.set_stream),
}


class _SetStream:
    """``setter(ext)`` for the body, then the previous stream back."""

    def __init__(self, c: Ctx, setter: Callable[[Any], None]) -> None:
        self.c, self.setter = c, setter

    def __enter__(self) -> None:
        self.previous = self.c.npu.current_stream()
        self.setter(self.c.ext)

    def __exit__(self, *exc: Any) -> None:
        self.setter(self.previous)


@pytest.mark.parametrize("case", PINNED_COPIES, ids=list(PINNED_COPIES))
def test_pinned_non_blocking_copy_under_external_stream_raises(ctx: Ctx, case: str) -> None:
    with ctx.npu.stream(ctx.ext), pytest.raises(ExternalStreamError) as info:
        PINNED_COPIES[case](ctx)
    assert info.value.code == "XST201" and isinstance(info.value, RuntimeError)
    assert "[XST201]" in str(info.value) and "non_blocking" in str(info.value)
    assert info.value.stream_id == ctx.ext.stream_id and info.value.device == 0
    assert not [e for e in ctx.log if e[0] == "synchronize_with_timeout"]


@pytest.mark.parametrize("region", REGIONS, ids=list(REGIONS))
def test_every_way_of_making_ext_current_is_seen(ctx: Ctx, region: str) -> None:
    with REGIONS[region](ctx), pytest.raises(ExternalStreamError, match=r"\[XST201\]"):
        _h2d(ctx)
    _h2d(ctx)  # after the region: the default stream again, the copy is fine


def _pageable(c: Ctx) -> Any:
    return c.torch.ones(4).to("npu", non_blocking=True)


def _blocking(c: Ctx) -> Any:
    return c.pinned().to("npu", non_blocking=False)


def _blocking_d2h(c: Ctx) -> Any:
    return c.on_npu().to("cpu")


def _cpu(c: Ctx) -> Any:
    return c.on_npu().cpu()


def _npu_to_npu_one_device(c: Ctx) -> Any:
    return c.on_npu().to("npu:0", non_blocking=True, copy=True)


def _copy_pageable(c: Ctx) -> Any:
    return c.on_npu().copy_(c.torch.ones(4), non_blocking=True)


def _host_to_host(c: Ctx) -> Any:
    return c.pinned().to(c.torch.float64, non_blocking=True)


def _cpu_copy_(c: Ctx) -> Any:
    return c.torch.zeros(4).copy_(c.pinned(), non_blocking=True)


SAFE_COPIES = {
    "pageable": _pageable,
    "non_blocking=False": _blocking,
    "to-cpu-blocking": _blocking_d2h,
    ".cpu()": _cpu,
    "npu-to-npu-one-device": _npu_to_npu_one_device,
    "copy_-from-pageable": _copy_pageable,
    "host-to-host": _host_to_host,
    "cpu-copy_": _cpu_copy_,
}


@pytest.mark.parametrize("case", SAFE_COPIES, ids=list(SAFE_COPIES))
def test_safe_copies_under_external_stream_pass(ctx: Ctx, case: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExternalStreamWarning)
        with ctx.npu.stream(ctx.ext):
            SAFE_COPIES[case](ctx)


@pytest.mark.parametrize("case", PINNED_COPIES, ids=list(PINNED_COPIES))
def test_pinned_copies_on_a_managed_stream_pass(ctx: Ctx, case: str) -> None:
    with ctx.npu.stream(ctx.npu.Stream()):
        PINNED_COPIES[case](ctx)  # recorded on a managed stream: safe at free


def test_pinned_copies_with_an_external_stream_that_is_not_current_pass(ctx: Ctx) -> None:
    for case in PINNED_COPIES.values():
        case(ctx)


def test_warn_mode_lets_the_copy_through_and_names_the_users_line(ctx: Ctx) -> None:
    extstream_guard.install("warn")
    pinned = ctx.pinned()
    with ctx.npu.stream(ctx.ext), pytest.warns(ExternalStreamWarning, match="XST201") as caught:
        result = pinned.npu(non_blocking=True)
    assert result.device == ctx.torch.device("npu", 0)
    assert {w.filename for w in caught if w.category is ExternalStreamWarning} == {__file__}
    from tests.guard.npusim import memory

    assert (0, ctx.ext.stream_id) in memory.pinned_block(pinned).streams  # torch_npu's own
    _defuse(pinned)


def test_off_block_checks_nothing(ctx: Ctx) -> None:
    with extstream_guard.installed("off"), ctx.npu.stream(ctx.ext):
        pinned = ctx.pinned()
        pinned.to("npu", non_blocking=True)
    _defuse(pinned)


def test_checks_cheapest_first(ctx: Ctx, monkeypatch: Any) -> None:
    """No current-stream read without ``non_blocking`` (or an NPU-to-NPU copy), and the
    pinnedness query only after the current stream was found external (never for
    ``.to("cpu")``, whose result is pinned by construction)."""
    from tests.guard.npusim import fake_c

    counts = {"stream": 0, "pinned": 0}
    real_stream, real_pinned = fake_c._npu_getCurrentStream, ctx.torch.Tensor.is_pinned

    def stream(index: int) -> Any:
        counts["stream"] += 1
        return real_stream(index)

    def pinned(self: Any, *args: Any) -> bool:
        counts["pinned"] += 1
        return real_pinned(self, *args)

    host = ctx.pinned()
    monkeypatch.setattr(fake_c, "_npu_getCurrentStream", stream)
    monkeypatch.setattr(ctx.torch.Tensor, "is_pinned", pinned)
    host.to("npu", non_blocking=True)  # a managed stream current: no pinnedness query
    assert counts == {"stream": 1, "pinned": 0}
    host.to("npu")
    host.to(ctx.torch.float64)
    assert counts == {"stream": 1, "pinned": 0}  # no non_blocking, host source: nothing read
    with ctx.npu.stream(ctx.ext):
        counts["stream"] = 0  # torch_npu's StreamContext and the switch wrapper read it
        host.to("npu")
        host.to(ctx.torch.float64)
        ctx.on_npu().copy_(host)
        assert counts == {"stream": 0, "pinned": 0}
        with pytest.raises(ExternalStreamError):
            ctx.on_npu().to("cpu", non_blocking=True)
        assert counts == {"stream": 1, "pinned": 0}
        with pytest.raises(ExternalStreamError):
            host.to("npu", non_blocking=True)
        assert counts == {"stream": 2, "pinned": 1}
        ctx.torch.ones(4).to("npu", non_blocking=True)  # pageable: the query says no
        assert counts == {"stream": 3, "pinned": 2}


# --- G112: copies between NPUs --------------------------------------------------------------


@pytest.fixture
def two_devices(ctx: Ctx) -> Iterator[tuple[Ctx, Any]]:
    ctx.npu.set_device(1)
    ext1 = ctx.npu.ExternalStream(HANDLE + 0x1000)
    ctx.npu.set_device(0)
    yield ctx, ext1


@pytest.mark.parametrize("side", ["source", "destination"])
@pytest.mark.parametrize("spelling", ["to", "npu(1)", "copy_"])
def test_cross_device_copy_while_either_side_is_external(
    two_devices: tuple[Ctx, Any], side: str, spelling: str
) -> None:
    c, ext1 = two_devices
    stream = c.ext if side == "source" else ext1
    src = c.on_npu(0)
    calls = {
        "to": lambda: src.to("npu:1"),
        "npu(1)": lambda: src.npu(1),
        "copy_": lambda: c.on_npu(1).copy_(src),
    }
    with c.npu.stream(stream), pytest.raises(ExternalStreamError) as info:
        calls[spelling]()
    assert info.value.code == "XST112"
    api = "NPUEvent::record" if side == "source" else "NPUEvent::block"
    assert str(info.value).startswith(native_not_supported(api))
    assert not [e for e in c.log if e[0] == "peer_copy"]


def test_cross_device_copy_on_managed_streams_and_one_device_copies_pass(
    two_devices: tuple[Ctx, Any],
) -> None:
    c, _ = two_devices
    src = c.on_npu(0)
    assert src.to("npu:1").device == c.torch.device("npu", 1)  # ext exists, not current
    with c.npu.stream(c.npu.Stream()):
        src.to("npu:1")
    with c.npu.stream(c.ext):
        src.to("npu:0", copy=True)
        c.on_npu(0).copy_(src)
        src.to(c.torch.float64)


# --- G203: backward across an external-stream boundary ----------------------------------------


def test_forward_under_ext_backward_outside(ctx: Ctx) -> None:
    weight = ctx.on_npu(requires_grad=True)
    with ctx.npu.stream(ctx.ext):
        loss = (weight * 2).sum()
    with pytest.raises(ExternalStreamError) as info:
        loss.backward()
    assert info.value.code == "XST203" and info.value.stream_id == ctx.ext.stream_id
    assert str(info.value).startswith(native_not_supported("LaunchWaitEventTask"))
    assert weight.grad is None  # the engine never ran
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        ctx.torch.autograd.grad(loss, weight)
    with pytest.raises(ExternalStreamError, match=r"\[XST203\]"):
        ctx.torch.autograd.backward([loss])


def test_forward_outside_backward_under_ext(ctx: Ctx) -> None:
    weight = ctx.on_npu(requires_grad=True)
    loss = (weight * 2).sum()
    with ctx.ext, pytest.raises(ExternalStreamError) as info:
        loss.backward()
    assert info.value.code == "XST203"
    assert str(info.value).startswith(native_not_supported("LaunchRecordEventTask"))


@pytest.mark.parametrize("region", REGIONS, ids=list(REGIONS))
def test_forward_and_backward_under_the_same_ext_pass(ctx: Ctx, region: str) -> None:
    weight = ctx.on_npu(requires_grad=True)
    with REGIONS[region](ctx):
        loss = (weight * 2).sum()
        loss.backward(retain_graph=True)
    with REGIONS[region](ctx):  # the same stream entered again
        (grad,) = ctx.torch.autograd.grad(loss, weight)
    assert float(grad[0]) == 2.0


def test_backward_without_external_regions_and_cpu_graphs_pass(ctx: Ctx) -> None:
    weight = ctx.on_npu(requires_grad=True)
    (weight * 2).sum().backward()  # ext exists, never current
    with ctx.npu.stream(ctx.npu.Stream()):
        loss = (weight * 2).sum()
    loss.backward()  # managed streams: not ours to judge
    host = ctx.torch.ones(4, requires_grad=True)
    with ctx.npu.stream(ctx.ext):
        cpu_loss = (host * 2).sum()
    cpu_loss.backward()  # a CPU graph: no NPU stream sync
    assert float(host.grad[0]) == 2.0


# --- G202: graph replay ----------------------------------------------------------------------


def test_replay_is_not_checked_unless_selected(ctx: Ctx) -> None:
    graph = ctx.npu.NPUGraph()
    assert (ctx.npu.NPUGraph, "replay") not in patched()  # not even wrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExternalStreamWarning)
        with ctx.npu.stream(ctx.ext):
            graph.replay()


def test_replay_under_ext_warns_once_even_in_raise_mode(sim: Any, monkeypatch: Any) -> None:
    import torch

    from tests.guard import npusim

    monkeypatch.setenv("EXTSTREAM_GUARD_SELECT", "xst202")
    extstream_guard.install()
    ctx = Ctx(torch, sim.torch_npu.npu, npusim, sim.state.log)
    graph = ctx.npu.NPUGraph()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph.replay()
        with ctx.npu.stream(ctx.npu.Stream()):
            graph.replay()
        assert not caught
        with ctx.npu.stream(ctx.ext):
            graph.replay()
            graph.replay()
    ours = [w for w in caught if w.category is ExternalStreamWarning]
    assert len(ours) == 1 and "[XST202]" in str(ours[0].message)
    assert ours[0].filename == __file__


# --- the same programs in a process of their own -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code"),
    [("pinned-to-npu", "XST201"), ("backward-outside", "XST203"), ("backward-mixed", "XST203")],
)
def test_guarded_program_raises_at_the_call_and_lives(sim_build: Any, name: str, code: str) -> None:
    result = run_program(name, "raise")
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"CAUGHT {code}" in result.stdout and result.stdout.rstrip().endswith("LIVED")


def test_warn_mode_warns_at_the_copy_and_torch_npu_still_aborts(sim_build: Any) -> None:
    result = run_program("pinned-to-npu", "warn")
    assert "[XST201]" in result.stderr and "ExternalStreamWarning" in result.stderr
    assert result.stderr.index("[XST201]") < result.stderr.index("terminate called")
    assert result.returncode < 0 and "LIVED" not in result.stdout
