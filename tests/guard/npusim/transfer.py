"""``torch_npu.contrib.transfer_to_npu``'s tensor and module patches, from the wheel's own file.

Importing the real module needs all of torch_npu, so :func:`apply` takes from the wheel's
``contrib/transfer_to_npu.py`` the functions that patch ``torch.Tensor`` and ``torch.nn.Module``
(``_wrapper_cuda`` and the ``_replace_cuda_to_npu_*`` helpers it calls, ``_device_wrapper``,
``_replace_to_method_in_allowed_methods``) and the lists they read, executes them unchanged
(only their ``@torch._dynamo.disable`` decorators are dropped, which change nothing outside
``torch.compile`` and would import dynamo), and does what ``_init()`` does with them:

    _device_wrapper(torch.Tensor, torch_tensor_fn_white_list)
    torch.Tensor.cuda = torch.Tensor.npu
    torch.Tensor.is_cuda = torch.Tensor.is_npu
    _device_wrapper(torch.nn.Module, torch_module_fn_white_list)
    torch.nn.Module.cuda = torch.nn.Module.npu
    _replace_to_method_in_allowed_methods()

and registers the module in ``sys.modules`` (the guard reads a ``cuda`` device as the NPU when
it is imported). :meth:`Applied.undo` puts back exactly what it replaced, including the
contents of ``UninitializedTensorMixin._allowed_methods``, which the real code edits in place.
"""

from __future__ import annotations

import ast
import functools
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.nn.parameter import UninitializedTensorMixin

__all__ = ["MODULE", "Applied", "apply", "load"]

MODULE = "torch_npu.contrib.transfer_to_npu"
_FUNCTIONS = (
    "_wrapper_cuda", "_replace_cuda_to_npu_in_kwargs", "_replace_cuda_to_npu_in_list",
    "_replace_cuda_to_npu_in_dict", "_device_wrapper", "_replace_to_method_in_allowed_methods",
)  # fmt: skip
_LISTS = ("torch_tensor_fn_white_list", "torch_module_fn_white_list", "device_kwargs_list")
_MISSING = object()


def _undecorated(node: ast.FunctionDef) -> ast.FunctionDef:
    node.decorator_list = [d for d in node.decorator_list if "_dynamo" not in ast.unparse(d)]
    return node


def load(tree: Path) -> types.SimpleNamespace:
    """The wheel's functions and lists, executed in a namespace of their own."""
    source = (tree / "torch_npu" / "contrib" / "transfer_to_npu.py").read_text()
    module = ast.parse(source)
    body: list[ast.stmt] = []
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name in _FUNCTIONS:
            body.append(_undecorated(node))
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in _LISTS for t in node.targets
        ):
            body.append(node)
    found = {n.name for n in body if isinstance(n, ast.FunctionDef)}
    assert found == set(_FUNCTIONS), f"transfer_to_npu.py lacks {set(_FUNCTIONS) - found}"
    namespace: dict[str, Any] = {
        "torch": torch,
        "wraps": functools.wraps,
        "UninitializedTensorMixin": UninitializedTensorMixin,
        "__name__": MODULE,
    }
    code = compile(ast.Module(body=body, type_ignores=[]), str(tree / "transfer_to_npu"), "exec")
    exec(code, namespace)
    return types.SimpleNamespace(**{k: v for k, v in namespace.items() if not k.startswith("__")})


@dataclass
class Applied:
    """What :func:`apply` changed, to put back."""

    saved: list[tuple[Any, str, Any]] = field(default_factory=list)
    allowed: list[Any] = field(default_factory=list)
    module: Any = _MISSING

    def undo(self) -> None:
        for owner, name, value in reversed(self.saved):
            if value is _MISSING:
                if name in vars(owner):
                    delattr(owner, name)
            else:
                setattr(owner, name, value)
        UninitializedTensorMixin._allowed_methods[:] = self.allowed
        if self.module is _MISSING:
            sys.modules.pop(MODULE, None)
        else:
            sys.modules[MODULE] = self.module
        self.saved.clear()


def apply(tree: Path) -> Applied:
    """Patch torch as importing ``transfer_to_npu`` does (its tensor and module part)."""
    ns = load(tree)
    applied = Applied(allowed=list(UninitializedTensorMixin._allowed_methods))
    applied.module = sys.modules.get(MODULE, _MISSING)
    names = [
        (torch.Tensor, [*ns.torch_tensor_fn_white_list, "cuda", "is_cuda"]),
        (torch.nn.Module, [*ns.torch_module_fn_white_list, "cuda"]),
    ]
    for owner, attrs in names:
        for name in attrs:
            applied.saved.append((owner, name, vars(owner).get(name, _MISSING)))
    ns._device_wrapper(torch.Tensor, ns.torch_tensor_fn_white_list)
    torch.Tensor.cuda = torch.Tensor.npu  # type: ignore[attr-defined]
    torch.Tensor.is_cuda = torch.Tensor.is_npu  # type: ignore[attr-defined]
    ns._device_wrapper(torch.nn.Module, ns.torch_module_fn_white_list)
    torch.nn.Module.cuda = torch.nn.Module.npu  # type: ignore[attr-defined]
    ns._replace_to_method_in_allowed_methods()
    sys.modules[MODULE] = types.ModuleType(MODULE)
    return applied
