"""The one place that imports torch_npu, lazily, with an error that says what to do."""

from __future__ import annotations

import sys
from types import ModuleType

MISSING_MESSAGE = (
    "extstream_guard needs torch_npu; install torch-npu (pip install torch-npu) "
    "on a machine with CANN"
)


def load() -> ModuleType:
    """Return the torch_npu module, importing it on first use.

    ``import torch_npu`` fails in several ways without CANN (ImportError, OSError for a missing
    shared library, RuntimeError from its own checks); all become one ImportError that names
    the fix, chained to the original.
    """
    module = sys.modules.get("torch_npu")
    if module is not None:
        return module
    try:
        import torch_npu
    except (ImportError, OSError, RuntimeError) as exc:
        raise ImportError(f"{MISSING_MESSAGE} ({type(exc).__name__}: {exc})") from exc
    return torch_npu
