"""Text tests on one file's source: the bottom of the pre-filter, no imports of ours but data.

Every way to obtain an external stream spells ``ExternalStream`` (the class, its aliases and
annotations) or ``stream_ptr`` (``torch.npu.Stream(stream_ptr=...)``,
``SyncLaunchStream(stream_ptr=...)``), and every spelling the analysis resolves to torch_npu
contains ``npu`` (``torch.npu``, ``torch_npu``, ``transfer_to_npu`` for ``torch.cuda``). A
file without both is never parsed: torch's own CUDA stream code, for example, costs a few
substring tests instead of a libcst import and parse.
"""

from __future__ import annotations

import re


def might_use_external_streams(text: str) -> bool:
    """True if ``text`` could create or annotate a torch_npu external stream.

    Substring tests: an order of magnitude faster than an alternation regex.
    """
    return ("ExternalStream" in text or "stream_ptr" in text) and "npu" in text


def _refused_call() -> re.Pattern[str]:
    """A call of a method the contract refuses on some stream, event, graph or work."""
    from .contract import APIS  # pure data

    methods = sorted({api.attr for api in APIS if api.method and api.code is not None})
    return re.compile(r"\.(?:" + "|".join(methods) + r")\s*\(")


_REFUSED_CALL: re.Pattern[str] | None = None
#: Spellings of every torch_npu, distributed and accelerator name of the contract table.
_TORCH_MARKERS = ("npu", "distributed", "accelerator", "torch.Event", "torch.Stream")


def may_reach_refused(text: str) -> bool:
    """Whether a module may hold a helper that reaches a refused operation (a sink) or a
    handle for one: it spells a torch_npu / distributed name or calls a refused method name.
    Text only and generous: it decides which plain modules the index follows, not findings."""
    global _REFUSED_CALL
    if any(marker in text for marker in _TORCH_MARKERS):
        return True
    if _REFUSED_CALL is None:
        _REFUSED_CALL = _refused_call()
    return _REFUSED_CALL.search(text) is not None
