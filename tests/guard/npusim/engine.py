"""The stream synchronisation of PyTorch's autograd engine on NPU graphs (hazards.md, hazard 3).

``torch.autograd.backward`` and ``torch.autograd.grad`` end in ``_engine_run_backward``, which
calls ``Variable._execution_engine.run_backward``: C++ ``Engine::execute``. On an NPU graph the
engine syncs streams through ``NPUGuardImpl``, which a CPU graph never reaches, so while the
simulation is active :func:`activate` puts :class:`SimEngine` in ``_execution_engine``'s place.
It does what the C++ engine does with NPU streams around the real engine's run:

* **every node carries its stream**: the one current on its device, in the thread that made it,
  when forward created it (``node.h``: ``InputMetadata`` calls ``getStream``). The simulated
  kernels (:class:`~tests.guard.npusim.SimNPUTensor`'s dispatch) write it into the node's
  ``metadata`` as they make it (:func:`tag_nodes`); nothing is looked up later.
* an **AccumulateGrad** node gets the stream current when the leaf's accumulator was created:
  by the first op that used the leaf while no accumulator was alive, possibly long before this
  forward (it lives as long as any graph holds it, e.g. DDP's reducer);
* the root gradient's producer is the stream current at ``backward()`` (``Engine::execute``);
  when the root node's stream (the consumer) differs, ``InputBuffer::add`` first calls
  ``record_stream_any_impl(grad, consumer)`` (``recordDataPtrOnStream``: no external check, so
  the gradient's block remembers the stream and aborts the process when freed, if external),
  then records an event on the producer (**X06** if external) and the consumer waits on it
  (**X07** if external);
* every **interior edge** whose two nodes carry different streams does the same with the
  gradient it carries: recorded on the consumer's stream (freed when the failed graph task
  drops its buffers: an abort if that stream is external), X06 on the producer, X07 on the
  consumer;
* **leaf post-processing** (``exec_post_processing``) after the graph ran: each leaf
  (AccumulateGrad) stream that differs from the caller's current stream on its device is
  recorded (X06 if external) and the caller's stream waits (X07 if external).

Graphs on CPU tensors go straight to the real engine, in the caller's thread.

**Where the nodes run** (``engine.cpp``): the engine runs a device's nodes on that device's
own worker thread (``start_device_threads``: one per device ``NPUGuardImpl::deviceCount``
reports, started once, each with its device current from ``thread_init``), not in the caller's
thread, and each node under its own stream (``evaluate_function``'s ``OptionalStreamGuard`` on
``node.stream()``); the caller waits. The caller's thread-local state goes with the graph task
(``ThreadLocalStateGuard``): grad mode and the Python mode stacks here, but not the
``DisableTorchFunctionSubclass`` that :class:`~tests.guard.npusim.SimNPUTensor`'s dispatch
(the stand-in for C++ dispatch) holds around ``backward()``: a real NPU tensor has no
``__torch_function__`` to disable, so a hook sees NPU tensors as NPU tensors (in the caller's
thread they looked like host ones, and a hook's pinned copy went unseen). So an NPU root's graph
runs on :data:`DEVICE_THREADS` of the first NPU root's device, where the current streams are
:class:`NodeStreams`: the running node's own (``torch._C._current_autograd_node()``, set
before its tensor hooks, pre-hooks, function and post-hooks run), over the defaults for a node
no NPU kernel made; a switch made while a node runs holds until the next node. A backward
started from a device thread (a reentrant one, as ``checkpoint(use_reentrant=True)`` does)
runs on that thread, as the engine's reentrant path does. Not simulated: a graph over two
devices runs wholly on the first root's device thread, and CPU nodes of an NPU graph run there
too (the engine runs them in the caller's thread).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

import torch

from extstream_lint.contract import native_not_supported

from . import fake_c, memory

__all__ = ["SimEngine", "activate", "deactivate", "node_stream", "tag_nodes"]

_UNSET = object()
_saved: list[Any] = []
#: The key of a node's stream, ``(device, stream id)``, in its ``metadata`` dict.
STREAM_KEY = "npusim_stream"


def tag_nodes(node: Any, device: int) -> None:
    """Give ``node`` and the nodes an op made with it (untagged ones reachable from it) the
    stream current on ``device`` in this thread now: they were created by this op."""
    stack = [node]
    stream = (device, fake_c.STATE.current(device))
    while stack:
        current = stack.pop()
        if current is None:
            continue
        metadata = current.metadata
        if STREAM_KEY in metadata:
            continue
        metadata[STREAM_KEY] = stream
        stack.extend(child for child, _ in current.next_functions)


def node_stream(node: Any) -> tuple[int, int] | None:
    """``(device, stream id)`` the node carries, or None for a node no NPU op made."""
    return node.metadata.get(STREAM_KEY)


def _record(stream_id: int) -> None:  # NPUGuardImpl::record -> LaunchRecordEventTask
    if fake_c._is_ext(stream_id):
        raise RuntimeError(native_not_supported("LaunchRecordEventTask") + fake_c._suffix(7))
    fake_c.STATE.log.append(("engine_record", stream_id))


def _block(stream_id: int) -> None:  # NPUGuardImpl::block -> LaunchWaitEventTask
    if fake_c._is_ext(stream_id):
        raise RuntimeError(native_not_supported("LaunchWaitEventTask") + fake_c._suffix(7))
    fake_c.STATE.log.append(("engine_wait", stream_id))


def _cross(grad: Any, device: int, producer: int, consumer: int) -> None:
    """``InputBuffer::add``, Case A: the gradient recorded on the consumer, then the events."""
    if isinstance(grad, torch.Tensor):
        memory.record_data_ptr_on_stream(grad, device, consumer)
    _record(producer)
    _block(consumer)


def _sync_graph(root: Any, grad: Any, device: int) -> list[Any]:
    """The engine's record/wait steps for one NPU root, in the order it takes them; returns
    the leaf (AccumulateGrad) nodes it reached."""
    node = root.grad_fn
    if node is None:
        return []
    producer = fake_c.STATE.current(device)
    tagged = node_stream(node)
    consumer = tagged[1] if tagged is not None else producer
    if consumer != producer:
        _cross(grad, device, producer, consumer)
    leaves = []
    seen = {id(node)}
    stack = [(node, consumer)]
    while stack:
        parent, parent_stream = stack.pop()
        for child, _ in parent.next_functions:
            if child is None or id(child) in seen:
                continue
            seen.add(id(child))
            tagged = node_stream(child)
            stream = tagged[1] if tagged is not None else parent_stream
            if not child.next_functions and type(child).__name__ == "AccumulateGrad":
                leaves.append(child)
            if stream != parent_stream:
                # The gradient this edge carries: a buffer of its own, dropped with the
                # graph task's buffers when the engine fails.
                edge_grad = torch.empty(1)
                _cross(edge_grad, device, parent_stream, stream)
                del edge_grad
            stack.append((child, stream))
    return leaves


def _post_process(leaves: list[Any]) -> None:
    """``GraphTask::exec_post_processing``: leaf streams against the caller's streams."""
    for leaf in leaves:
        tagged = node_stream(leaf)
        if tagged is None:
            continue
        device, leaf_stream = tagged
        caller = fake_c.STATE.current(device)
        if leaf_stream != caller:
            _record(leaf_stream)
            _block(caller)


class NodeStreams(dict):  # type: ignore[type-arg]
    """An engine thread's current streams, ``{device: stream id}``: from the first read or
    switch while a node runs, the node's own stream on its device (``evaluate_function``'s
    ``OptionalStreamGuard``), the defaults elsewhere; a switch made during the node holds
    until the next node."""

    node: Any = None

    def __init__(self, home: int) -> None:
        super().__init__()
        self.home = home

    def enter(self) -> None:
        """Take the running node's stream, and its device: the engine runs a node on its
        device's own thread, where that device is current (``thread_init``)."""
        node = torch._C._current_autograd_node()
        if node is not self.node:
            self.node = node
            dict.clear(self)
            tagged = None if node is None else node_stream(node)
            fake_c.STATE.tls.device = self.home if tagged is None else tagged[0]
            if tagged is not None:
                dict.__setitem__(self, tagged[0], tagged[1])

    def get(self, device: Any, default: Any = None) -> Any:
        self.enter()
        return dict.get(self, device, default)

    def __setitem__(self, device: Any, stream_id: Any) -> None:
        self.enter()
        dict.__setitem__(self, device, stream_id)


class _DeviceThread(threading.Thread):
    """The engine's worker thread of one device: runs what :meth:`run` hands it, one graph
    task at a time, with that device current."""

    def __init__(self, device: int) -> None:
        super().__init__(name=f"npusim autograd npu:{device}", daemon=True)
        self.device = device
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.start()

    def run(self) -> None:
        _here.device = self.device
        while True:
            call, state, box, done = self.jobs.get()
            try:
                # thread_init's set_device (the state is reset between tests); streams at rest
                # are the defaults: a node's guard restores what it replaced
                fake_c.STATE.tls.device = self.device
                fake_c.STATE.tls.streams = NodeStreams(self.device)
                with _caller_state(state):
                    box.append(call())
            except BaseException as exc:  # handed to the caller, which raises it
                box.append(exc)
                box.append(_FAILED)
            finally:
                fake_c.STATE.tls.streams = {}
                done.set()
                # hold nothing of the graph task while waiting for the next one: its graph
                # (and the leaves' accumulators) dies with the caller's references
                del call, state, box, done


_FAILED = object()
_here = threading.local()
#: Device index -> its engine thread, started on first use and kept (as the engine's are).
DEVICE_THREADS: dict[int, _DeviceThread] = {}
_start_lock = threading.Lock()


def _capture() -> tuple[bool, list[Any], list[Any]]:
    """The caller's thread-local state a graph task carries: grad mode and the Python modes."""
    from torch.overrides import _get_current_function_mode_stack
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack

    return (
        torch.is_grad_enabled(),
        _get_current_function_mode_stack(),
        _get_current_dispatch_mode_stack(),
    )


class _caller_state:
    def __init__(self, state: tuple[bool, list[Any], list[Any]]) -> None:
        self.state = state

    def __enter__(self) -> None:
        from torch.overrides import _push_mode
        from torch.utils._python_dispatch import _push_mode as _push_dispatch_mode

        grad, functions, dispatches = self.state
        self.grad = torch.is_grad_enabled()
        torch.set_grad_enabled(grad)
        for mode in functions:
            _push_mode(mode)
        for mode in dispatches:
            _push_dispatch_mode(mode)

    def __exit__(self, *exc: Any) -> None:
        from torch.overrides import _pop_mode
        from torch.utils._python_dispatch import _pop_mode as _pop_dispatch_mode

        _grad, functions, dispatches = self.state
        for _ in dispatches:
            _pop_dispatch_mode()
        for _ in functions:
            _pop_mode()
        torch.set_grad_enabled(self.grad)


def _on_device_thread(device: int, call: Callable[[], Any]) -> Any:
    """``call()`` on ``device``'s engine thread, the caller waiting; inline on an engine thread
    (the reentrant path)."""
    if getattr(_here, "device", None) is not None:
        return call()
    worker = DEVICE_THREADS.get(device)
    if worker is None:
        with _start_lock:
            worker = DEVICE_THREADS.get(device) or DEVICE_THREADS.setdefault(
                device, _DeviceThread(device)
            )
    box: list[Any] = []
    done = threading.Event()
    worker.jobs.put((call, _capture(), box, done))
    done.wait()
    if len(box) > 1 and box[1] is _FAILED:
        error = box[0]
        box.clear()
        raise error
    return box[0]


class SimEngine:
    """``Variable._execution_engine`` with the NPU stream syncs of ``Engine::execute``, an
    NPU graph run on its device's engine thread."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def run_backward(self, t_outputs: Any, grad_tensors: Any, *args: Any, **kwargs: Any) -> Any:
        from .kernels import npu_index

        grads = list(grad_tensors) if grad_tensors is not None else []
        leaves: list[Any] = []
        devices = []
        for position, root in enumerate(t_outputs):
            device = npu_index(root)
            if device is not None:
                grad = grads[position] if position < len(grads) else None
                leaves += _sync_graph(root, grad, device)
                devices.append(device)
        if not devices:
            return self._real.run_backward(t_outputs, grad_tensors, *args, **kwargs)
        result = _on_device_thread(
            devices[0], lambda: self._real.run_backward(t_outputs, grad_tensors, *args, **kwargs)
        )
        _post_process(leaves)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def activate() -> None:
    from torch.autograd.variable import Variable

    if _saved:
        return
    _saved.append(vars(Variable).get("_execution_engine", _UNSET))
    Variable._execution_engine = SimEngine(Variable._execution_engine)


def deactivate() -> None:
    from torch.autograd.variable import Variable

    if not _saved:
        return
    previous = _saved.pop()
    if previous is _UNSET:
        del Variable._execution_engine
    else:
        Variable._execution_engine = previous
