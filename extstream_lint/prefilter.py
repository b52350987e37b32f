"""A cheap text test that lets every adapter skip files that cannot hold an external stream.

Every way to obtain an external stream spells ``ExternalStream`` (the class, its aliases and
annotations) or ``stream_ptr`` (``torch.npu.Stream(stream_ptr=...)``,
``SyncLaunchStream(stream_ptr=...)``), and every spelling the analysis resolves to torch_npu
contains ``npu`` (``torch.npu``, ``torch_npu``, ``transfer_to_npu`` for ``torch.cuda``). A
file without both is never parsed: torch's own CUDA stream code, for example, costs a few
substring tests instead of a libcst import and parse.
"""

from __future__ import annotations

import os


def might_use_external_streams(text: str) -> bool:
    """True if ``text`` could create or annotate a torch_npu external stream.

    Substring tests: an order of magnitude faster than an alternation regex.
    """
    return ("ExternalStream" in text or "stream_ptr" in text) and "npu" in text


def should_analyse(text: str, filename: str, src: tuple[str, ...] = ()) -> bool:
    """The adapters' test: the markers, or an import of a project module that may hand
    this file an external stream (an adapter module, a holder class, a registry)."""
    if might_use_external_streams(text):
        return True
    if "import" not in text or not filename or os.path.splitext(filename)[1] != ".py":
        return False
    from .modules import external_imports  # plain Python, no libcst

    return external_imports(src).imports_external(text, filename)
