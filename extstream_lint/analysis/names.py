"""Canonical names: every alias of a torch_npu API is mapped onto one qualified name.

``torch.npu`` *is* ``torch_npu.npu`` at run time (torch registers the backend module), the
``streams``/``graphs``/``utils`` submodules re-export into it, and after
``import torch_npu.contrib.transfer_to_npu`` the ``torch.cuda`` names are torch_npu's too.
The rule tables in :mod:`extstream_lint.contract` use the canonical spellings only.
"""

from __future__ import annotations

from ..contract import COLLECTIVES

_NPU = "torch_npu.npu"
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("torch.npu.streams", _NPU),
    ("torch.npu.graphs", _NPU),
    ("torch.npu.utils", _NPU),
    ("torch.npu", _NPU),
    ("torch_npu.npu.streams", _NPU),
    ("torch_npu.npu.graphs", _NPU),
    ("torch_npu.npu.utils", _NPU),
    ("torch.distributed.distributed_c10d", "torch.distributed"),
    ("torch_npu.distributed.distributed_c10d", "torch_npu.distributed"),
)
_CUDA_ONLY_RENAMES = {"torch_npu.npu.CUDAGraph": "torch_npu.npu.NPUGraph"}


def canonical(qualname: str, transfer_to_npu: bool = False) -> str:
    """Map an alias onto the canonical qualified name used by the rule tables."""
    if transfer_to_npu and (qualname == "torch.cuda" or qualname.startswith("torch.cuda.")):
        qualname = _NPU + qualname[len("torch.cuda") :]
        qualname = _CUDA_ONLY_RENAMES.get(qualname, qualname)
    for prefix, target in _PREFIXES:
        if qualname == prefix or (qualname.startswith(prefix) and qualname[len(prefix)] == "."):
            return target + qualname[len(prefix) :]
    return qualname


#: What ``from <module> import *`` binds that the rules care about.
STAR_EXPORTS: dict[str, tuple[str, ...]] = {
    _NPU: (
        "ExternalStream",
        "Stream",
        "SyncLaunchStream",
        "Event",
        "ExternalEvent",
        "NPUGraph",
        "graph",
        "stream",
        "StreamContext",
        "set_stream",
        "current_stream",
        "graph_task_group_begin",
        "graph_task_group_end",
        "graph_task_update_begin",
        "graph_task_update_end",
        "super_kernel_scope_begin",
        "super_kernel_scope_end",
    ),
    "torch.distributed": COLLECTIVES,
}

#: Names that mean the torch modules even where the file never imports them: ``import
#: torch`` loads torch_npu by itself, and snippets often omit their imports.
IMPLICIT_MODULES: tuple[str, ...] = ("torch", "torch_npu")
