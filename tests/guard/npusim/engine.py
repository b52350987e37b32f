"""The stream synchronisation of PyTorch's autograd engine on NPU graphs (hazards.md, hazard 3).

``torch.autograd.backward`` and ``torch.autograd.grad`` end in ``_engine_run_backward``, which
calls ``Variable._execution_engine.run_backward``: C++ ``Engine::execute``. On an NPU graph the
engine syncs streams through ``NPUGuardImpl``, which a CPU graph never reaches, so while the
simulation is active :func:`activate` puts :class:`SimEngine` in ``_execution_engine``'s place.
It does what the C++ engine does with NPU streams before the real engine runs the graph:

* every node's stream is the one current on its device when forward created it (``node.h``),
  read from the fake C layer's history of current streams by the node's sequence number;
* the root gradient's producer is the stream current at ``backward()`` (``Engine::execute``);
  when the root node's stream (the consumer) differs, ``InputBuffer::add`` first calls
  ``record_stream_any_impl(grad, consumer)`` (``recordDataPtrOnStream``: no external check, so
  the gradient's block remembers the stream and aborts the process when freed, if external),
  then records an event on the producer (**X06** if external) and the consumer waits on it
  (**X07** if external);
* a node whose input comes from a node on another stream does the same record/wait.

AccumulateGrad nodes (stream of their creation, possibly an earlier iteration) and leaf
post-processing are not modelled. Graphs on CPU tensors go straight to the real engine.
"""

from __future__ import annotations

from typing import Any

import torch

from extstream_lint.contract import native_not_supported

from . import fake_c, memory

__all__ = ["SimEngine", "activate", "deactivate"]

_UNSET = object()
_saved: list[Any] = []


def _record(stream_id: int) -> None:  # NPUGuardImpl::record -> LaunchRecordEventTask
    if fake_c._is_ext(stream_id):
        raise RuntimeError(native_not_supported("LaunchRecordEventTask") + fake_c._suffix(7))
    fake_c.STATE.log.append(("engine_record", stream_id))


def _block(stream_id: int) -> None:  # NPUGuardImpl::block -> LaunchWaitEventTask
    if fake_c._is_ext(stream_id):
        raise RuntimeError(native_not_supported("LaunchWaitEventTask") + fake_c._suffix(7))
    fake_c.STATE.log.append(("engine_wait", stream_id))


def _node_stream(node: Any, device: int) -> int | None:
    try:
        sequence_nr = node._sequence_nr()
    except (AttributeError, RuntimeError):
        return None
    if sequence_nr >= (1 << 63):  # AccumulateGrad: UINT64_MAX, stream of its creation
        return None
    return fake_c.STATE.stream_at(device, sequence_nr)


def _sync_graph(root: Any, grad: Any, device: int) -> None:
    """The engine's record/wait steps for one NPU root, in the order it takes them."""
    node = root.grad_fn
    if node is None:
        return
    producer = fake_c.STATE.current(device)
    consumer = _node_stream(node, device)
    if consumer is not None and consumer != producer:
        if isinstance(grad, torch.Tensor):
            memory.record_data_ptr_on_stream(grad, device, consumer)
        _record(producer)
        _block(consumer)
    seen = {id(node)}
    stack = [(node, consumer)]
    while stack:
        parent, parent_stream = stack.pop()
        for child, _ in parent.next_functions:
            if child is None or id(child) in seen:
                continue
            seen.add(id(child))
            stream = _node_stream(child, device)
            if stream is not None and parent_stream is not None and stream != parent_stream:
                _record(parent_stream)
                _block(stream)
            stack.append((child, parent_stream if stream is None else stream))


class SimEngine:
    """``Variable._execution_engine`` with the NPU stream syncs of ``Engine::execute``."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def run_backward(self, t_outputs: Any, grad_tensors: Any, *args: Any, **kwargs: Any) -> Any:
        from .kernels import npu_index

        grads = list(grad_tensors) if grad_tensors is not None else []
        for position, root in enumerate(t_outputs):
            device = npu_index(root)
            if device is not None:
                grad = grads[position] if position < len(grads) else None
                _sync_graph(root, grad, device)
        return self._real.run_backward(t_outputs, grad_tensors, *args, **kwargs)

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
