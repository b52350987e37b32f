"""The simulation is no kinder than torch_npu (issue 40): each point checked against the wheel.

A test that passes only because the simulated C layer accepts, records or switches less than
torch_npu does would pass for the wrong reason. Each point here reads the real wheel (its
Python files or ``libtorch_npu.so``) or CPython's own machinery as ground truth.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from typing import Any

import pytest

from tests import _npu_wheel
from tests._skips import NO_TORCH

pytest.importorskip("torch", reason=NO_TORCH)


@pytest.fixture(scope="module")
def library() -> Iterator[bytes]:
    try:
        yield _npu_wheel.read_member(_npu_wheel.DEFAULT_VERSION, "torch_npu/lib/libtorch_npu.so")
    except _npu_wheel.WheelUnavailable as exc:  # pragma: no cover - network
        if _npu_wheel.offline():
            pytest.skip(str(exc))
        pytest.fail(str(exc), pytrace=False)


# --- the stream constructor's argument parser -------------------------------------------------

_KEYWORDS = ("priority", "is_sync_launch", "stream_id", "device_index", "device_type",
             "stream_ptr")  # fmt: skip


def test_the_stream_format_is_the_library_s(library: bytes) -> None:
    from tests.guard.npusim import fake_c

    assert b"\0" + fake_c.STREAM_FORMAT.encode() + b"\0" in library
    assert all(name.encode() + b"\0" in library for name in _KEYWORDS)


def _cpython(keyword: str, value: Any) -> Any:
    """What ``PyArg_ParseTupleAndKeywords(args, {keyword: value}, STREAM_FORMAT, ...)`` gives
    (CPython's own ``getargs.c``, called through ctypes): the value stored, or the error."""
    from tests.guard.npusim import fake_c

    kwlist = (ctypes.c_char_p * 7)(*(name.encode() for name in _KEYWORDS), None)
    slots = [ctypes.c_int(), ctypes.c_int(), ctypes.c_longlong(), ctypes.c_longlong(),
             ctypes.c_longlong(), ctypes.c_ulonglong()]  # fmt: skip
    parse = ctypes.pythonapi.PyArg_ParseTupleAndKeywords
    parse.restype = ctypes.c_int
    try:
        parse(ctypes.py_object(()), ctypes.py_object({keyword: value}),
              ctypes.c_char_p(fake_c.STREAM_FORMAT.encode()), kwlist,
              *(ctypes.byref(slot) for slot in slots))  # fmt: skip
    except Exception as exc:
        return type(exc)
    return slots[_KEYWORDS.index(keyword)].value


def _simulated(keyword: str, value: Any) -> Any:
    from tests.guard.npusim import fake_c

    position = _KEYWORDS.index(keyword) + 1
    try:
        return fake_c.parse_arg(fake_c.STREAM_FORMAT[position], value, position)
    except Exception as exc:
        return type(exc)


class _Index:
    """A numpy-like integer: not an ``int``, but with ``__index__``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


_VALUES = {
    "int": 5, "negative": -1, "bool": True, "index": _Index(7), "float": 1.0, "None": None,
    "str": "5", "c-int-overflow": 2**40, "over-64-bit": 2**64 + 5, "over-long-long": 2**70,
    "negative-index": _Index(-2),
}  # fmt: skip


@pytest.mark.parametrize("value", _VALUES, ids=list(_VALUES))
@pytest.mark.parametrize("keyword", _KEYWORDS)
def test_the_simulated_parser_converts_as_cpython_does(keyword: str, value: str) -> None:
    """``i`` / ``L`` take ``__index__`` objects and check the C range, ``K`` only ``int``s,
    masked: the simulation refused numpy-like integers everywhere (issue 40)."""
    assert _simulated(keyword, _VALUES[value]) == _cpython(keyword, _VALUES[value])


# --- the copy kernels' non_blocking flag ------------------------------------------------------

_FLAGS = {"True": True, "False": False, "numpy-bool": "numpy", "int": 1, "None": None}


def _flag(name: str) -> Any:
    value = _FLAGS[name]
    if value == "numpy":
        numpy = pytest.importorskip("numpy", reason="numpy is not installed")
        return numpy.True_
    return value


def _outcome(call: Any) -> Any:
    try:
        call()
    except Exception as exc:
        return type(exc)
    return None


@pytest.mark.parametrize("flag", _FLAGS)
def test_the_simulated_copies_take_the_flags_torch_takes(sim: Any, flag: str) -> None:
    """torch's parser takes only a ``bool`` for ``non_blocking`` (``UntypedStorage.copy_``
    also None): torch's own methods on host tensors are the ground truth, the simulated
    kernels on NPU tensors must answer alike (they took numpy bools and ints, issue 40). The
    tensor methods are torch's own now, parsing before they dispatch to the kernels; the storage
    copy is still the simulation's function."""
    import torch

    from tests.guard import npusim
    from tests.guard.npusim import kernels

    value = _flag(flag)
    host = torch.ones(4)
    truth = {
        "to": _outcome(lambda: torch._C.TensorBase.to(host, "cpu", non_blocking=value)),
        "copy_": _outcome(lambda: torch._C.TensorBase.copy_(torch.zeros(4), host, value)),
        "storage": _outcome(
            lambda: torch._C.StorageBase.copy_(
                torch.UntypedStorage(16), host.untyped_storage(), value
            )
        ),
    }
    npu_t = npusim.npu_tensor()
    simulated = {
        "to": _outcome(lambda: npu_t.to("cpu", non_blocking=value)),
        "copy_": _outcome(lambda: npusim.npu_tensor().copy_(host, value)),
        "storage": _outcome(
            lambda: kernels.storage_copy_(npusim.npu_storage(16), host.untyped_storage(), value)
        ),
    }
    from tests.guard.npusim import memory

    for tensor in (host,):
        block = memory.pinned_block(tensor)
        if block is not None:
            block.streams.clear()
    assert simulated == truth


# --- ``with stream:`` switches the device too -----------------------------------------------


def test_with_stream_is_torch_s_context_manager(sim: Any) -> None:
    """The wheel's ``Stream`` and ``SyncLaunchStream`` define no ``__enter__``: ``with s:`` is
    torch.Stream's C ``THPStream_enter``, which makes the stream's device current first and
    restores it at exit; the simulation switched the stream only."""
    import ast

    from tests.guard._wheels import wheel_tree

    tree = ast.parse((wheel_tree(_npu_wheel.DEFAULT_VERSION) / "torch_npu/npu/streams.py")
                     .read_text())  # fmt: skip
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for name in ("Stream", "SyncLaunchStream"):
        members = {m.name for m in classes[name].body if isinstance(m, ast.FunctionDef)}
        assert "__enter__" not in members and "__exit__" not in members
    npu = sim.torch_npu.npu
    assert npu.current_device() == 0
    with npu.device(1):
        other = npu.Stream()
    with other:
        assert npu.current_device() == 1 and npu.current_stream(1) == other
    assert npu.current_device() == 0 and npu.current_stream(1) != other


def test_a_pinned_copy_under_with_ext_on_another_device_is_refused(sim: Any) -> None:
    """What the device switch changes for the guard: after ``with ext:`` for an external
    stream of npu:1, ``.to("npu")`` copies to npu:1, whose current stream is external."""
    import torch

    import extstream_guard
    from extstream_guard import ExternalStreamError

    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(0x7A00_0000, device=1)
    pinned = torch.ones(4).pin_memory()
    with ext, pytest.raises(ExternalStreamError, match=r"npu:1"):
        pinned.to("npu", non_blocking=True)


def test_cpu_of_an_npu_tensor_is_a_host_tensor(sim: Any) -> None:
    """``npu_t.cpu()`` is a blocking copy into a new host tensor; the simulation re-wrapped
    every result as an NPU tensor, so no test could build a host root from an NPU one."""
    import torch

    from tests.guard import npusim

    npu_t = npusim.npu_tensor(requires_grad=True)
    host = npu_t.cpu()
    assert type(host) is torch.Tensor and host.device == torch.device("cpu")
    assert host.data_ptr() != npu_t.data_ptr()
    (host * 2).sum().backward()  # a host root over an NPU leaf
    assert float(npu_t.grad[0]) == 2.0


# --- pin_memory=True is torch_npu's pinned host allocator -------------------------------------


def test_the_library_serves_pin_memory_factories(library: bytes) -> None:
    """torch reaches a backend's pinned allocator for ``pin_memory=True`` through its
    PrivateUse1 hooks; torch_npu's define ``getPinnedMemoryAllocator`` and ``isPinnedPtr``."""
    for symbol in (b"_ZNK7c10_npu17NPUHooksInterface24getPinnedMemoryAllocatorEv",
                   b"_ZNK7c10_npu17NPUHooksInterface11isPinnedPtrEPKv"):  # fmt: skip
        assert symbol in library


@pytest.mark.parametrize(
    "spelling",
    ["empty", "zeros", "ones", "full", "tensor", "arange", "empty_strided", "randn",
     "zeros_like", "new_zeros", "new_empty"],
)  # fmt: skip
def test_pin_memory_factories_give_pinned_memory(sim: Any, spelling: str) -> None:
    """CPU-only torch raised ("Please register PrivateUse1HooksInterface"); torch_npu
    allocates pinned host memory, which a ``non_blocking`` copy then records in."""
    import torch

    base = torch.arange(4.0)
    calls = {
        "empty": lambda: torch.empty(4, pin_memory=True),
        "zeros": lambda: torch.zeros(4, pin_memory=True),
        "ones": lambda: torch.ones(4, pin_memory=True),
        "full": lambda: torch.full((4,), 2.0, pin_memory=True),
        "tensor": lambda: torch.tensor([1.0, 2.0], pin_memory=True),
        "arange": lambda: torch.arange(4, pin_memory=True),
        "empty_strided": lambda: torch.empty_strided((4,), (1,), pin_memory=True),
        "randn": lambda: torch.randn(4, pin_memory=True),
        "zeros_like": lambda: torch.zeros_like(base, pin_memory=True),
        "new_zeros": lambda: base.new_zeros(4, pin_memory=True),
        "new_empty": lambda: base.new_empty(4, pin_memory=True),
    }
    made = calls[spelling]()
    assert type(made) is torch.Tensor and made.is_pinned()
    assert not torch.zeros(4).is_pinned() and not torch.zeros(4, pin_memory=False).is_pinned()
    if spelling == "tensor":
        assert made.tolist() == [1.0, 2.0]


def test_every_pin_memory_signature_is_served(sim: Any) -> None:
    """The family is read from torch's stubs, so none is left to raise."""
    import torch

    from tests.guard.npusim import kernels

    names = dict((owner.__name__, found) for owner, found in kernels.PIN_MEMORY)
    assert {"empty", "zeros", "linspace", "eye", "randint"} <= set(names["torch"])
    assert {"new_empty", "new_full", "new_ones"} <= set(names["Tensor"])
    for owner, found in kernels.PIN_MEMORY:
        for name in found:
            if hasattr(owner, name):
                assert getattr(getattr(owner, name), "__wrapped__", None) is not None, name
    assert torch.eye(2, pin_memory=True).is_pinned()


def test_a_factory_pinned_buffer_copied_under_ext_is_refused(sim: Any) -> None:
    import torch

    import extstream_guard
    from extstream_guard import ExternalStreamError

    npu = sim.torch_npu.npu
    extstream_guard.install()
    ext = npu.ExternalStream(0x7A00_0000)
    staging = torch.empty(4, pin_memory=True)
    with npu.stream(ext), pytest.raises(ExternalStreamError, match="XST201"):
        staging.to("npu", non_blocking=True)


# --- an NPU operator takes NPU operands ---------------------------------------------------------


def test_an_npu_operator_refuses_a_host_operand(library: bytes, sim: Any) -> None:
    """torch_npu's operators convert each tensor operand for the device (``ConvertType``),
    which refuses a host tensor other than a 0-dim scalar with the text below and
    ``OPS_ERROR(ErrCode::TYPE)``; the simulation computed ``npu_t + cpu_t`` on the CPU, so a
    test could mix host and device tensors the hardware refuses (issue 40)."""
    import torch

    from tests.guard import npusim

    assert npusim.MIXED_DEVICES.encode() + b"\0" in library
    assert b"\0OPS\0" in library and b"\0invalid type\0" in library
    npu_t, host = npusim.npu_tensor(), torch.ones(4)
    refusals = {
        "add": lambda: npu_t + host,
        "radd": lambda: host + npu_t,
        "mul_": lambda: npusim.npu_tensor().mul_(host),
        "cat": lambda: torch.cat([npu_t, host]),
        "where": lambda: torch.where(npu_t > 0, npu_t, host),
        "linear": lambda: torch.nn.functional.linear(npu_t, torch.ones(2, 4)),
    }
    for name, call in refusals.items():
        with pytest.raises(RuntimeError, match=r"(?s)^Expected all tensors.*ERR01002 OPS"):
            call()
        assert name
    assert (npu_t + torch.tensor(2.0)).device.type == "npu"  # a wrapped scalar is fine
    assert npu_t[torch.tensor([0, 1])].device.type == "npu"  # host indices are moved
    assert (npu_t.cpu() + host).device.type == "cpu"
    assert npu_t.to("cpu").add(host).device.type == "cpu"


# --- one current stream per device, nothing of earlier switches ---------------------------------


def test_switches_keep_one_current_stream_per_device(library: bytes, sim: Any) -> None:
    """torch_npu's switch is ``c10_npu::setCurrentNPUStream(NPUStream)``: it overwrites the
    device's current stream and keeps no history (a node keeps its own stream, written when
    the kernel makes it). The simulation appended every switch to a per-thread list that
    never shrank (issue 40)."""
    assert b"_ZN7c10_npu19setCurrentNPUStreamENS_9NPUStreamE\0" in library
    npu = sim.torch_npu.npu
    streams = [npu.Stream(), npu.ExternalStream(0x7A00_0000)]
    for round_ in range(1000):
        npu.set_stream(streams[round_ % 2])
    npu.set_stream(npu.default_stream())
    kept = vars(sim.state.tls)
    assert set(kept) <= {"device", "streams", "enter_stack"}, kept
    assert len(kept["streams"]) <= 2


# --- the autograd engine runs an NPU graph on the device's thread, each node on its stream ------

_GUARD_IMPL = (b"_ZNK7c10_npu4impl12NPUGuardImpl11deviceCountEv",
               b"_ZNK7c10_npu4impl12NPUGuardImpl9setDeviceEN3c106DeviceE",
               b"_ZNK7c10_npu4impl12NPUGuardImpl14exchangeStreamEN3c106StreamE")  # fmt: skip


def test_an_npu_graph_runs_on_its_device_thread_under_each_node_s_stream(
    library: bytes, sim: Any
) -> None:
    """torch's engine starts one thread per device the backend's guard reports
    (``deviceCount``), makes the device current there (``setDevice``) and runs each node
    under its own stream (``exchangeStream``): torch_npu supplies all three. The simulation
    ran every node in the caller's thread under the caller's stream."""
    import threading

    import torch

    from tests.guard import npusim

    assert all(symbol + b"\0" in library for symbol in _GUARD_IMPL)
    npu = sim.torch_npu.npu
    seen: list[tuple[str, str, int, int]] = []

    def probe(where: str) -> Any:
        def hook(*_: Any) -> None:
            thread = threading.current_thread().name
            seen.append((where, thread, npu.current_device(), npu.current_stream(1).stream_id))

        return hook

    weight = npusim.npu_tensor(requires_grad=True, device=1)
    side = npu.Stream(device=1)
    with npu.stream(side):
        hidden = weight * 2  # MulBackward0 made under ``side``
    hidden.register_hook(probe("tensor hook of a node made under side"))
    out = hidden * 3  # made under npu:1's default stream
    out.grad_fn.register_prehook(probe("pre-hook of a node made on the default"))
    with npu.stream(side):
        out.sum().backward()
    engine = "npusim autograd npu:1"
    assert seen == [
        ("pre-hook of a node made on the default", engine, 1, 0),
        ("tensor hook of a node made under side", engine, 1, side.stream_id),
    ]
    assert npu.current_device() == 0 and npu.current_stream(1).stream_id == 0

    host: list[str] = []
    leaf = torch.ones(2, requires_grad=True)
    (leaf * 2).register_hook(lambda _: host.append(threading.current_thread().name))
    product = leaf * 2
    product.register_hook(lambda _: host.append(threading.current_thread().name))
    product.sum().backward()
    assert host == [threading.current_thread().name]  # a CPU graph stays in the caller's

    def fail(_: Any) -> None:
        raise ValueError("raised in a hook")

    broken = weight * 5
    broken.register_hook(fail)
    with pytest.raises(ValueError, match="raised in a hook"):
        broken.sum().backward()  # the engine's error reaches the caller


# --- the current-stream query answers from the thread's state, kept until it changes ------------


def test_the_current_stream_query_follows_every_change_of_the_thread_s_state(sim: Any) -> None:
    """``torch_npu._C._npu_getCurrentStream`` is C reading a C++ thread-local; the simulation
    keeps each thread's answers until its device or streams change (issue 40: recomputing them
    in Python was counted as the guard's cost). After every kind of change, in this thread,
    another one and the engine's device thread, it answers what the state says."""
    import threading

    from tests.guard import npusim
    from tests.guard.npusim import fake_c

    npu = sim.torch_npu.npu
    ext0, ext1 = npu.ExternalStream(0x7A00_0000), npu.ExternalStream(0x7A00_1000, device=1)
    side = npu.Stream(device=1)
    mismatches: list[Any] = []

    def agree(where: str) -> None:
        for index in (None, -1, 0, 1):
            for _ in range(2):  # computed, then kept
                got = fake_c._npu_getCurrentStream(index)
                if got != fake_c._current_stream(index):
                    mismatches.append((where, index, got, fake_c._current_stream(index)))

    agree("start")
    npu.set_stream(ext0)
    agree("set_stream(ext0)")
    npu.set_device(1)
    agree("set_device(1)")
    with ext1:
        agree("with ext1")
        with npu.stream(side):
            agree("with stream(side)")
        agree("left stream(side)")
    agree("left ext1")
    npu.set_stream(npu.default_stream(1))
    npu.set_device(0)
    agree("set_device(0)")
    worker = threading.Thread(target=lambda: (agree("thread"), npu.set_stream(ext0),
                                              agree("thread, set_stream(ext0)")))  # fmt: skip
    worker.start()
    worker.join()
    agree("after the thread")
    weight = npusim.npu_tensor(requires_grad=True, device=1)
    with npu.stream(side):
        hidden = weight * 2
    hidden.register_hook(lambda grad: agree("engine thread, node made under side"))
    (hidden * 3).sum().backward()
    agree("after backward")
    npu.set_stream(npu.default_stream())
    sim.state.reset()
    agree("after reset")
    assert mismatches == []
