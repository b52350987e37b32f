"""A stand-in for torch_npu's C extension (``torch_npu._C``), written in Python.

It reproduces what the guard and the real Python files of torch_npu rely on, from the contract
(``shared/spec/external-stream-contract.md``):

* stream ids encoded like ``NPUStream.cpp``: managed ``(type << 5) | index`` (<= 159), external
  ``(1 << 30) | registry index`` in a per-device registry keyed by the raw pointer, device type
  20; ``THNPStream_pynew``'s argument handling (``stream_ptr == 0`` means a pool stream; the id
  keywords win over the pointer; priority / is_sync_launch checks only for a non-null pointer);
* a thread-local current stream per device and a thread-local current device;
* every check of the catalogue (X01-X05, X08-X18, X22, X23, X24, X26) raising ``RuntimeError``
  with torch_npu's exact text and the ``PTA_ERROR`` suffix layout;
* the side effects the guard must prevent: ``_subscribe_report`` starts its report thread before
  its check (counted in ``STATE.report_threads``), ``npu_stream`` reads are counted (the guard must
  never read it) and raise under ``PER_STREAM_QUEUE=1``;
* base types that refuse attribute assignment like CPython static types (the same
  ``Py_TPFLAGS_IMMUTABLETYPE`` flag, set on the type object; metaclass ``type``), so a guard that
  patched ``_NPUStreamBase`` / ``_NPUEventBase`` / ``_NPUGraph`` would fail here as on real
  hardware, and torch_npu's Python classes over them are plain ``type`` instances as there.

Simplifications: no device memory, no task queue (ops and events only log what they did), two
devices, ACL calls always succeed, events complete immediately. ``_NPUStreamBase`` subclasses the
real ``torch.Stream``, as in torch_npu (``Stream.cpp``: ``tp_base`` is ``torch.Stream``);
``_NPUEventBase`` subclasses ``object``.
"""

from __future__ import annotations

import ctypes
import operator
import os
import threading
import time
from typing import Any

import torch

from extstream_lint.contract import (
    NATIVE_PRIORITY,
    NATIVE_QUERY,
    NATIVE_SYNC_LAUNCH,
    NATIVE_SYNCHRONIZE,
    native_not_supported,
)

EXT_MARK = 1 << 30
EXT_INDEX_MASK = EXT_MARK - 1
PRIVATEUSE1 = 20
DEVICE_COUNT = 2
_STREAMS_PER_POOL = 32
_TYPE_DEFAULT, _TYPE_SYNCLAUNCH, _TYPE_NORMAL, _TYPE_HIGH = 0, 2, 3, 4
_MASK64 = (1 << 64) - 1

#: ``Py_TPFLAGS_IMMUTABLETYPE``: what makes CPython's static (C) types refuse attribute
#: assignment. Not inherited, so Python subclasses (``Stream`` in streams.py) stay mutable.
_IMMUTABLE = 1 << 8


def _make_immutable(cls: type) -> None:
    """Give a class defined here the flag every C extension type has, so it refuses attribute
    assignment and deletion exactly as ``torch_npu._C._NPUStreamBase`` does (same CPython
    check, same message), while its metaclass stays plain ``type`` like a C type's. The flag
    sits in ``tp_flags``, found as the word of the type object that equals ``__flags__``."""
    flags = cls.__flags__
    words = (ctypes.c_ulong * 64).from_address(id(cls))
    offset = next(i for i in range(64) if words[i] == flags)
    words[offset] = flags | _IMMUTABLE
    assert cls.__flags__ & _IMMUTABLE and type(cls) is type


class _ThreadState(threading.local):
    """One thread's current device and streams. Read through class defaults: a missing
    attribute of a ``threading.local`` costs ~1 us (an AttributeError made and dropped), where
    torch_npu reads a C++ thread-local; the guard's copy and backward checks query the current
    stream on every call, so that cost would be counted as the guard's (issue 40)."""

    device = 0
    streams: dict[int, int] | None = None
    enter_stack: list[tuple[int, int, int]] | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        threading.local.__setattr__(self, name, value)
        if name != "enter_stack":
            _forget_answers()


class _Answers(dict):  # type: ignore[type-arg]
    """One thread's ``_npu_getCurrentStream`` answers, ``{index: (stream id, device, type)}``,
    each computed on first read (:func:`_current_stream`) and kept until the thread's device
    or streams change: torch_npu answers from a C++ thread-local, in C; a Python function
    recomputing it was counted, 0.15 us a call, as the guard's cost (issue 40). Kept only
    where the thread's state is plain: on an engine thread the running node decides it
    (``engine.NodeStreams``), so each read recomputes there. The class default of
    :class:`_AnswerLocal` stores nothing: a thread's own table is made on its first read."""

    __slots__ = ()

    def __missing__(self, index: Any) -> tuple[int, int, int]:
        answer = _current_stream(index)
        streams = STATE.tls.streams
        if (streams is None or type(streams) is dict) and (index is None or type(index) is int):
            local = _answers
            table = vars(local).get("table")
            if table is None:
                table = local.table = _Answers()
            table[index] = answer
        return answer


class _AnswerLocal(threading.local):
    table: _Answers = _Answers()


#: Each thread's answers; replaced by ``SimState.reset`` (every thread's state goes).
_answers = _AnswerLocal()


def _forget_answers() -> None:
    """The calling thread's device or streams changed: its answers go."""
    vars(_answers).pop("table", None)


class SimState:
    """Everything the fake C layer remembers; ``reset()`` between tests."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        global _answers
        self.registry: dict[int, list[int]] = {d: [] for d in range(DEVICE_COUNT)}
        self.tls = _ThreadState()
        _answers = _AnswerLocal()
        self.round_robin = 0
        self.npu_stream_reads = 0
        self.report_threads = 0
        self.log: list[tuple[Any, ...]] = []
        self.lock = threading.Lock()
        #: torch_npu's atexit ``_npu_shutdown`` ran: allocators record no more events.
        self.shut_down = False

    # thread-local current device and streams
    def device(self) -> int:
        # on an engine thread, the running node's device is current (engine.NodeStreams)
        tls = self.tls
        enter = getattr(tls.streams, "enter", None)
        if enter is not None:
            enter()
        return tls.device

    def set_device(self, index: int) -> None:
        if not 0 <= index < DEVICE_COUNT:
            raise RuntimeError(f"SetDevice failed: invalid device {index}" + _suffix(3, "VALUE"))
        self.tls.device = index

    def current(self, device: int) -> int:
        streams = self.tls.streams
        return 0 if streams is None else streams.get(device, 0)

    def set_current(self, device: int, stream_id: int) -> None:
        """One current stream per device and thread, as torch_npu keeps it
        (``current_streams[device]``): nothing of earlier switches is kept. A node's stream
        is written into it when the simulated kernel makes it (``engine.tag_nodes``)."""
        tls = self.tls
        if tls.streams is None:
            tls.streams = {}
        tls.streams[device] = stream_id
        _forget_answers()


STATE = SimState()

_ERR_TEXT = {
    1: "invalid parameter",
    2: "invalid type",
    3: "invalid value",
    7: "feature not supported",
}
#: The submodules an error code names (``ERR<submodule:2><code:3>``): torch_npu's own, and
#: the operator plugin's (``OPS_ERROR``).
_SUBMODULES = {"PTA": 0, "OPS": 1}


def _suffix(code: int, _name: str = "", submodule: str = "PTA") -> str:
    """``PTA_ERROR(code)`` / ``OPS_ERROR(code)`` (NPUException.cpp): empty under
    TORCH_NPU_COMPACT_ERROR_OUTPUT."""
    if os.environ.get("TORCH_NPU_COMPACT_ERROR_OUTPUT", "") not in ("", "0"):
        return ""
    stamp = time.strftime("%Y-%m-%d-%H:%M:%S")
    rank = os.environ.get("RANK", "-1")
    number = _SUBMODULES[submodule] * 1000 + code
    return (
        f"\n[ERROR] {stamp} (PID:{os.getpid()}, Device:{STATE.device()}, RankID:{rank}) "
        f"ERR{number:05d} {submodule} {_ERR_TEXT[code]}"
    )


def _is_ext(stream_id: int) -> bool:
    return bool(int(stream_id) & EXT_MARK)


def check_not_external(stream: Any, api_name: str) -> None:
    """``checkNotExternalStream`` (NPUStream.cpp:912-920)."""
    if _is_ext(stream.stream_id):
        raise RuntimeError(native_not_supported(api_name) + _suffix(7))


def check_current_not_external(device: int, api_name: str) -> None:
    """``checkCurrentStreamNotExternal`` (NPUStream.cpp:921-928)."""
    if _is_ext(STATE.current(device)):
        raise RuntimeError(native_not_supported(api_name, current=True) + _suffix(7))


def _validate(stream_id: int, device: int) -> None:
    if not 0 <= device < DEVICE_COUNT:
        raise RuntimeError(f"Invalid device index {device}" + _suffix(1))
    if _is_ext(stream_id):
        if (stream_id & EXT_INDEX_MASK) >= len(STATE.registry[device]):
            raise RuntimeError(
                f"Unrecognized external NPU stream stream {stream_id} on device npu:{device}"
                + _suffix(1)
            )
    elif stream_id > (_TYPE_HIGH << 5 | (_STREAMS_PER_POOL - 1)):
        raise RuntimeError(f"Unrecognized stream stream {stream_id}" + _suffix(1))


def _register(pointer: int, device: int) -> int:
    with STATE.lock:
        entries = STATE.registry[device]
        if pointer in entries:
            return EXT_MARK | entries.index(pointer)
        entries.append(pointer)
        return EXT_MARK | (len(entries) - 1)


def _pool(priority: int, sync_launch: int) -> int:
    with STATE.lock:
        STATE.round_robin = (STATE.round_robin + 1) % _STREAMS_PER_POOL
        index = STATE.round_robin
    kind = _TYPE_SYNCLAUNCH if sync_launch else (_TYPE_HIGH if priority < 0 else _TYPE_NORMAL)
    return (kind << 5) | index


#: ``THNPStream_pynew``'s ``PyArg_ParseTupleAndKeywords`` format (a test finds it in
#: ``libtorch_npu.so``), over priority, is_sync_launch, stream_id, device_index, device_type,
#: stream_ptr.
STREAM_FORMAT = "|iiLLLK"
_INT_RANGE = {"i": (-(1 << 31), (1 << 31) - 1), "L": (-(1 << 63), (1 << 63) - 1)}


def parse_arg(unit: str, value: Any, position: int) -> int:
    """One argument as CPython's ``getargs.c`` converts it: ``i`` / ``L`` take any object with
    ``__index__`` (numpy integers too; not floats) and check the C range, ``K`` takes only an
    ``int`` (subclasses, ``bool``, included) and keeps its low 64 bits, with no range check."""
    if unit == "K":
        if not isinstance(value, int):
            name = "None" if value is None else type(value).__name__
            raise TypeError(f"argument {position} must be int, not {name}")
        return int(value) & _MASK64
    if isinstance(value, float):
        raise TypeError("'float' object cannot be interpreted as an integer")
    number = operator.index(value)  # TypeError for anything without __index__
    low, high = _INT_RANGE[unit]
    if not low <= number <= high:
        if unit == "L":
            raise OverflowError("int too big to convert")
        side = "greater than maximum" if number > high else "less than minimum"
        raise OverflowError(f"signed integer is {side}")
    return number


class _NPUStreamBase(torch.Stream):
    """``THNPStream``: parses ``|iiLLLK`` over priority, is_sync_launch, stream_id,
    device_index, device_type, stream_ptr (Stream.cpp:16-73)."""

    def __new__(
        cls,
        priority: Any = 0,
        is_sync_launch: Any = 0,
        stream_id: Any = 0,
        device_index: Any = 0,
        device_type: Any = 0,
        stream_ptr: Any = 0,
    ) -> Any:
        values = (priority, is_sync_launch, stream_id, device_index, device_type, stream_ptr)
        parsed = [
            parse_arg(unit, value, position)
            for position, (unit, value) in enumerate(zip(STREAM_FORMAT[1:], values), 1)
        ]
        priority, is_sync_launch, stream_id, device_index, device_type, pointer = parsed
        current_device = STATE.device()
        if pointer:
            if priority != 0:
                raise RuntimeError(NATIVE_PRIORITY + _suffix(1))
            if is_sync_launch != 0:
                raise RuntimeError(NATIVE_SYNC_LAUNCH + _suffix(1))
        if stream_id or device_index or device_type:
            sid, device = stream_id, device_index
        elif pointer:
            sid, device = _register(pointer, current_device), current_device
        else:
            sid, device = _pool(priority, is_sync_launch), current_device
        _validate(sid, device)
        return torch.Stream.__new__(
            cls, stream_id=sid, device_index=device, device_type=PRIVATEUSE1
        )

    def query(self) -> bool:
        if _is_ext(self.stream_id):
            raise RuntimeError(NATIVE_QUERY + _suffix(7))
        return True

    def synchronize(self) -> None:
        if _is_ext(self.stream_id):
            raise RuntimeError(NATIVE_SYNCHRONIZE + _suffix(7))
        STATE.log.append(("synchronize", self.stream_id))

    def set_data_preprocess_stream(self, is_data_preprocess_stream: bool = False) -> None:
        STATE.log.append(("data_preprocess", self.stream_id, is_data_preprocess_stream))

    @property
    def npu_stream(self) -> int:
        STATE.npu_stream_reads += 1
        if _is_ext(self.stream_id):
            if os.environ.get("PER_STREAM_QUEUE") == "1":
                raise RuntimeError(
                    "External NPU stream is not supported in NPUStream::stream() with "
                    "per-stream task queue." + _suffix(7)
                )
            return STATE.registry[self.device_index][self.stream_id & EXT_INDEX_MASK]
        return 0x7F00_0000_0000 + (self.device_index << 16) + self.stream_id * 0x100

    @property
    def priority(self) -> int:
        raise RuntimeError("NPU dose not support Stream.get_priority() currently.")

    # ``with ext:`` is torch.Stream's context manager -> NPUGuardImpl::exchangeStream.
    # ``THPStream_enter`` saves the current device and the stream's device's current stream,
    # makes the stream's device current, then the stream; ``THPStream_exit`` restores both.
    def __enter__(self) -> Any:
        stack = STATE.tls.enter_stack
        if stack is None:
            stack = STATE.tls.enter_stack = []
        stack.append((STATE.device(), self.device_index, STATE.current(self.device_index)))
        if self.device_index != STATE.device():
            STATE.set_device(self.device_index)
        STATE.set_current(self.device_index, self.stream_id)
        return self

    def __exit__(self, *exc: Any) -> None:
        before, device, previous = STATE.tls.enter_stack.pop()
        STATE.set_current(device, previous)
        if before != STATE.device():
            STATE.set_device(before)


class _NPUEventBase:
    """``THNPEvent`` (Event.cpp); the external checks come before ``is_created_``."""

    def __new__(
        cls,
        enable_timing: bool = False,
        blocking: bool = False,
        interprocess: bool = False,
        graph_external: bool = False,
    ) -> Any:
        self = object.__new__(cls)
        self._sim_flags = (enable_timing, blocking, interprocess, graph_external)
        self._sim_device: int | None = None
        self._sim_handle = 0
        return self

    def record(self, stream: Any) -> None:
        check_not_external(stream, "NPUEvent::record")
        if self._sim_device is not None and self._sim_device != stream.device_index:
            raise RuntimeError(
                f"Event device {self._sim_device} does not match recording stream's device "
                f"{stream.device_index}." + _suffix(1)
            )
        self._sim_device = stream.device_index
        self._sim_handle = self._sim_handle or 0x6000_0000 + id(self) % 0xFFFF
        STATE.log.append(("record", id(self), stream.stream_id))

    def wait(self, stream: Any) -> None:
        check_not_external(stream, "NPUEvent::block")
        if self._sim_handle:
            STATE.log.append(("wait", id(self), stream.stream_id))

    def reset(self, stream: Any) -> None:  # NPUEvent.cpp:214-223: no external check
        STATE.log.append(("reset", id(self), stream.stream_id))

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        STATE.log.append(("event_synchronize", id(self)))

    def elapsed_time(self, other: Any) -> float:
        return 0.0

    def recorded_time(self) -> int:
        return 0

    def ipc_handle(self) -> bytes:
        return b"sim-ipc-handle"

    @classmethod
    def from_ipc_handle(cls, device: Any, handle: bytes) -> Any:
        return cls.__new__(cls)

    @property
    def npu_event(self) -> int:
        return self._sim_handle

    @property
    def device(self) -> Any:
        return None if self._sim_device is None else torch.device("npu", self._sim_device)


class _NPUGraph:
    """``NPUGraph`` bindings (Graph.cpp); capture checks the *current* stream."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        self = object.__new__(cls)
        self._sim_capture_stream: int | None = None
        self._sim_captured = False
        return self

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def capture_begin(
        self, pool: Any = None, capture_error_mode: str = "global", report_shape: bool = False
    ) -> None:
        device = STATE.device()
        if _is_ext(STATE.current(device)):
            raise RuntimeError(native_not_supported("NPUGraph::capture_begin") + _suffix(7))
        self._sim_capture_stream = STATE.current(device)
        STATE.log.append(("capture_begin", id(self), self._sim_capture_stream))

    def capture_end(self) -> None:
        if _is_ext(STATE.current(STATE.device())):
            raise RuntimeError(native_not_supported("NPUGraph::capture_end") + _suffix(7))
        self._sim_captured = True
        STATE.log.append(("capture_end", id(self)))

    def replay(self) -> None:
        STATE.log.append(("replay", id(self), STATE.current(STATE.device())))

    def reset(self) -> None:
        self._sim_captured = False

    def pool(self) -> tuple[int, int]:
        return (id(self) & 0xFFFF, 0)


for _cls in (_NPUStreamBase, _NPUEventBase, _NPUGraph):
    _cls.__module__ = "torch_npu._C"
    _make_immutable(_cls)


# --- module functions (Module.cpp / Graph.cpp) ------------------------------------------------


def _npu_getDevice() -> int:
    return STATE.device()


_npu_getDeviceWithoutSet = _npu_getDevice
_npu_getLocalDevice = _npu_getDevice


def _npu_setDevice(index: int) -> None:
    STATE.set_device(index)


def _npu_maybeExchangeDevice(index: int) -> int:
    previous = STATE.device()
    STATE.set_device(index)
    return previous


def _npu_getDeviceCount() -> int:
    return DEVICE_COUNT


def _npu_is_bf16_supported() -> bool:  # the simulated SoC is an Ascend910B1
    return True


def _resolve_device(index: int) -> int:
    return STATE.device() if index is None or index < 0 else index


def _npu_getCurrentStream(index: int) -> tuple[int, int, int]:
    # A C function in torch_npu, read on every guarded switch, copy check and backward: the
    # answer is kept per thread until its state changes (``_Answers``), so the simulation
    # does not make the guard look slower than it is.
    return _answers.table[index]


def _current_stream(index: Any) -> tuple[int, int, int]:
    """``THNPModule_getCurrentStream_wrap``: the calling thread's current stream on device
    ``index`` (None or negative: the current device), ``(stream id, device index, type)``."""
    if index is None or index < 0:
        index = STATE.device()
    streams = STATE.tls.streams
    return (0 if streams is None else streams.get(index, 0), index, PRIVATEUSE1)


def _npu_getDefaultStream(index: int) -> tuple[int, int, int]:
    return (0, _resolve_device(index), PRIVATEUSE1)


def exchange_stream(stream_id: int, device_index: int) -> None:
    """``NPUGuardImpl::exchangeStream`` / ``setCurrentNPUStream``: the C++ switch every Python
    path ends in (``torch.accelerator.set_stream`` reaches it without ``_npu_setStream``)."""
    _validate(stream_id, device_index)
    if device_index != STATE.device():
        STATE.set_device(device_index)
    STATE.set_current(device_index, stream_id)


def _npu_setStream(stream_id: int = 0, device_index: int = 0, device_type: int = 0) -> None:
    exchange_stream(stream_id, device_index)


def _npu_synchronize() -> None:  # device-wide; covers external streams too
    STATE.log.append(("device_synchronize", STATE.device()))


def _npu_emptyCache() -> None:
    STATE.log.append(("empty_cache",))


def _weak_ref_tensor(tensor: Any) -> Any:
    return tensor


def _npu_set_task_queue_enable(mode: int) -> None:
    STATE.log.append(("task_queue", mode))


def _npu_get_task_queue_enable() -> int:
    return 1


def _graph_pool_handle() -> tuple[int, int]:
    return (1, 0)


def _npu_isCurrentStreamCapturing() -> bool:
    return False  # no capture is ever left open in the simulation


def _graph_task_group_begin(stream: Any) -> None:
    check_not_external(stream, "graph_task_group_begin")
    STATE.log.append(("graph_task_group_begin", stream.stream_id))


def _graph_task_group_end(stream: Any) -> int:
    check_not_external(stream, "graph_task_group_end")
    STATE.log.append(("graph_task_group_end", stream.stream_id))
    return 0x1234


def _graph_task_update_begin(stream: Any, handle: Any) -> None:
    check_not_external(stream, "graph_task_update_begin")
    STATE.log.append(("graph_task_update_begin", stream.stream_id, handle))


def _graph_task_update_end(stream: Any) -> None:
    check_not_external(stream, "graph_task_update_end")
    STATE.log.append(("graph_task_update_end", stream.stream_id))


def _super_kernel_scope_begin(scope_name: Any = None) -> None:
    if _is_ext(STATE.current(STATE.device())):
        raise RuntimeError(native_not_supported("super_kernel_scope_begin") + _suffix(7))
    STATE.log.append(("super_kernel_scope_begin", scope_name))


def _super_kernel_scope_end(scope_name: Any = None) -> None:
    if _is_ext(STATE.current(STATE.device())):
        raise RuntimeError(native_not_supported("super_kernel_scope_end") + _suffix(7))
    STATE.log.append(("super_kernel_scope_end", scope_name))


def _launch_host_func(stream: Any, fn: Any, user_data: Any) -> None:
    check_not_external(stream, "launch_callback")
    STATE.log.append(("launch_host_func", stream.stream_id))


def _launch_host_func_pending(stream: Any, fn: Any, user_data: Any) -> None:
    STATE.log.append(("launch_host_func_pending", stream.stream_id))  # no check (NPUGraph.cpp)


def _subscribe_report(stream: Any) -> None:
    STATE.report_threads += 1  # Graph.cpp:576-579 creates the report thread before the check
    check_not_external(stream, "subscribe_report")
    STATE.log.append(("subscribe_report", stream.stream_id))


def _unsubscribe_report(stream: Any) -> None:
    if _is_ext(stream.stream_id):  # Graph.cpp:591 synchronizes the stream first
        raise RuntimeError(NATIVE_SYNCHRONIZE + _suffix(7))
    check_not_external(stream, "unsubscribe_report")
    STATE.log.append(("unsubscribe_report", stream.stream_id))


_LIMITS: dict[tuple[int, int, int], int] = {}


def _npu_set_stream_res_limit(
    stream_id: int = 0, device_index: int = 0, device_type: int = 0, type: int = 0, value: int = 0
) -> None:  # NPUFunctions.cpp:559-582: no external check
    _validate(stream_id, device_index)
    _LIMITS[(device_index, stream_id, type)] = value


def _npu_reset_stream_res_limit(
    stream_id: int = 0, device_index: int = 0, device_type: int = 0
) -> None:
    _validate(stream_id, device_index)
    for key in [k for k in _LIMITS if k[:2] == (device_index, stream_id)]:
        del _LIMITS[key]


def _npu_get_stream_res_limit(
    stream_id: int = 0, device_index: int = 0, device_type: int = 0, type: int = 0
) -> int:
    _validate(stream_id, device_index)
    return _LIMITS.get((device_index, stream_id, type), 24 if type == 0 else 48)


def record_stream(tensor: Any, stream: Any) -> None:
    """``NPUNativeFunctions::record_stream`` (StreamAndEventKernelNpu.cpp:12)."""
    check_not_external(stream, "record_stream")
    STATE.log.append(("record_stream", stream.stream_id))
