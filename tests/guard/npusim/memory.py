"""torch_npu's host and device allocators, as far as the deferred aborts need them (spec 2.6).

**Pinned host memory** (``CachingHostAllocator``). A pinned block is a ``bytearray`` subclass
that a CPU tensor views through ``torch.frombuffer``: torch keeps the buffer alive exactly as long
as any tensor or view shares that storage, and drops it when the last one dies. Its ``__del__``
is therefore the allocator's ``raw_local_deleter``, run at the moment the real one runs. A
``non_blocking`` copy between a pinned block and the NPU records the copy's stream in the block
(``CachingHostAllocator_recordEvent`` -> ``streams_``); freeing the block records an event on each
of those streams (``free()`` -> ``record_stream`` -> ``NPUEvent::record``). On an external
stream that is X03, thrown from a deleter without a ``try``: C++ calls ``std::terminate``, which
the simulation reproduces with the same ``terminate called ...`` line and ``os.abort()``
(SIGABRT). After torch_npu's atexit ``_npu_shutdown`` the default allocator skips the record, so
blocks that live until exit are freed quietly (:func:`shut_down`, registered at exit).

**Device memory** (``NPUCachingAllocator``). Only the one path the autograd engine takes is
modelled: ``recordDataPtrOnStream`` (no external check) puts a stream into a block's
``stream_uses``; freeing the block records an event there (``insert_events``), X03 in
``local_raw_delete``, same terminate. The block's lifetime is the tensor object's (a finalizer),
which is as close as Python gets to the C++ storage without an allocator of its own.

:func:`is_pinned` answers like the driver query: by address, for any tensor or storage that
shares a live pinned block.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import weakref
from collections.abc import Iterator
from typing import Any

import torch

from extstream_lint.contract import native_not_supported

from . import fake_c

__all__ = [
    "allocate_pinned",
    "is_pinned",
    "only_new_objects_collected",
    "pinned_block",
    "record_on_block",
    "shut_down",
]

#: Live pinned blocks by the address of their first byte (weakly: the storage owns them).
_blocks: weakref.WeakValueDictionary[int, _PinnedBuffer] = weakref.WeakValueDictionary()


def abort(message: str) -> None:
    """What ``std::terminate`` does: the line on stderr, then SIGABRT."""
    sys.stderr.write(message)
    sys.stderr.flush()
    os.abort()


#: Called with the terminate message. In-process tests swap in a recorder (the ``sim`` fixture),
#: so a guard that fails to stop a hazard fails that test instead of killing the test worker;
#: the subprocess tests keep the abort.
terminate = abort


def _terminate(api_name: str) -> None:
    """``std::terminate`` after a ``c10::Error`` escaped a noexcept destructor."""
    terminate(
        "terminate called after throwing an instance of 'c10::Error'\n"
        f"  what():  {native_not_supported(api_name)}{fake_c._suffix(7)}\n"
    )


class _PinnedBuffer(bytearray):
    """One pinned host block; ``streams`` is ``HostBlock::streams_`` as (device, stream id)."""

    streams: set[tuple[int, int]]
    address: int

    def __del__(self) -> None:  # raw_local_deleter -> free()
        streams = getattr(self, "streams", ())
        if not streams or fake_c.STATE.shut_down:
            return
        for device, stream_id in sorted(streams):
            if fake_c._is_ext(stream_id):
                _terminate("NPUEvent::record")
                return
            fake_c.STATE.log.append(("host_block_event", device, stream_id))


def allocate_pinned(shape: torch.Size, dtype: torch.dtype) -> torch.Tensor:
    """A CPU tensor in a fresh pinned block (``getPinnedMemoryAllocator()->allocate``)."""
    count = 1
    for size in shape:
        count *= size
    itemsize = torch.empty((), dtype=dtype).element_size()
    buffer = _PinnedBuffer(max(count * itemsize, 1))
    buffer.streams = set()
    flat = torch.frombuffer(buffer, dtype=torch.uint8)[: count * itemsize]
    buffer.address = flat.data_ptr()
    _blocks[buffer.address] = buffer
    del buffer  # the storage holds the only reference from here on
    return flat.view(dtype).view(shape)


def pinned_block(obj: Any) -> _PinnedBuffer | None:
    """The live pinned block ``obj`` (a tensor or an untyped storage) lives in, or None."""
    storage = obj.untyped_storage() if isinstance(obj, torch.Tensor) else obj
    return _blocks.get(storage.data_ptr())


def is_pinned(obj: Any) -> bool:
    return pinned_block(obj) is not None


@contextlib.contextmanager
def only_new_objects_collected() -> Iterator[None]:
    """``gc.collect()`` inside the block examines only the objects made inside it.

    A test forces the frees a deferred abort waits for with ``gc.collect()``, and in a test
    worker (torch, libcst, hypothesis, the suite's own data) a full collection walks some
    200,000 objects, about 0.1 s of CPU each time. ``gc.freeze()`` moves what exists now into
    the permanent generation, which collections skip, so they walk only what the block made:
    the test's tensors, graphs and threads. What they leave to a later collection is a cycle
    that an object made before the block joins after it became garbage, which none of the
    callers' code makes. The frozen objects go back to the oldest generation when it ends.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


#: Events recorded so far for a later free (pinned blocks, device blocks): a caller that saw
#: none recorded knows no free can abort, and need not collect garbage to find out.
RECORDS = [0]


def record_on_block(obj: Any, device: int) -> None:
    """``CachingHostAllocator_recordEvent``: a non_blocking copy touched pinned ``obj`` on the
    current stream of ``device``; pageable memory is synchronised instead (safe, logged)."""
    stream_id = fake_c.STATE.current(device)
    block = pinned_block(obj)
    if block is None:
        fake_c.STATE.log.append(("synchronize_with_timeout", device, stream_id))
        return
    block.streams.add((device, stream_id))
    RECORDS[0] += 1


def _free_device_block(device: int, stream_id: int) -> None:
    if fake_c.STATE.shut_down:
        return
    if fake_c._is_ext(stream_id):
        _terminate("NPUEvent::record")
        return
    fake_c.STATE.log.append(("device_block_event", device, stream_id))


def record_data_ptr_on_stream(tensor: torch.Tensor, device: int, stream_id: int) -> None:
    """``NPUGuardImpl::recordDataPtrOnStream``: no external check; the event comes at free."""
    weakref.finalize(tensor, _free_device_block, device, stream_id)
    RECORDS[0] += 1


def shut_down() -> None:
    """torch_npu's atexit ``_npu_shutdown``: the default allocator records nothing after it."""
    fake_c.STATE.shut_down = True
