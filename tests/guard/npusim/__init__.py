"""A simulated torch_npu: a fake C layer under the real Python files of the torch-npu wheel.

:func:`build` assembles, once per process, a ``torch_npu`` package in memory:

* ``torch_npu._C``: :mod:`.fake_c` (immutable base types, exact C++ texts);
* ``torch_npu.npu.utils``, ``torch_npu.npu.streams``, ``torch_npu.npu.graphs``,
  ``torch_npu.npu.npu_config`` and ``torch_npu.utils._error_code``: the **real** files from the
  wheel in ``.cache/``, executed unchanged;
* ``torch_npu.npu`` itself: a small namespace re-exporting them the way the real
  ``npu/__init__.py`` does (that file imports half of torch_npu, so it is not executed), plus the
  private hooks ``_launch_host_func`` & co. as the same one-line forwarders to ``_C``;
* stubs for what the real files import but cannot run here (``_backends.get_soc_version``,
  ``_compiler._config``, the graph-op handler registry, ``utils.utils``, ``_path_manager``);
* ``torch_npu.distributed`` and ``torch_npu.distributed.distributed_c10d``: the stand-ins of
  :mod:`.fake_dist` for every function torch_npu adds there (uneven collectives, ``_gather``...);
* while active, the C++ behaviour of HCCL process groups and works (:mod:`.fake_dist`);
* ``torch._C._get_accelerator`` (needs C++ PrivateUse1 hooks) while active.

:func:`activate` puts those modules into ``sys.modules`` and registers ``torch.npu`` the way
``torch._register_device_module`` does; :func:`deactivate` takes them out again, so the rest of a
test session never sees a torch_npu. The privateuse1 backend is renamed to ``npu`` once per
process (torch allows no undo; nothing else in this project depends on the name).
"""

from __future__ import annotations

import importlib.util
import sys
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from . import fake_c, fake_dist

__all__ = ["Sim", "activate", "build", "deactivate", "npu_tensor"]

_REAL_FILES = {
    "torch_npu.utils._error_code": "utils/_error_code.py",
    "torch_npu.npu.utils": "npu/utils.py",
    "torch_npu.npu.streams": "npu/streams.py",
    "torch_npu.npu.graphs": "npu/graphs.py",
    "torch_npu.npu.npu_config": "npu/npu_config.py",
}


@dataclass
class Sim:
    """The built modules, the wheel version they came from and the fake C state."""

    version: str
    modules: dict[str, ModuleType]
    state: fake_c.SimState = field(default_factory=lambda: fake_c.STATE)

    @property
    def torch_npu(self) -> ModuleType:
        return self.modules["torch_npu"]

    @property
    def C(self) -> ModuleType:
        return self.modules["torch_npu._C"]


_built: Sim | None = None
_saved: dict[str, Any] = {}
_MISSING = object()


def _package(name: str) -> ModuleType:
    module = ModuleType(name)
    module.__path__ = []  # a package: submodules resolve through sys.modules
    module.__package__ = name
    return module


def _module(name: str, **attrs: Any) -> ModuleType:
    module = ModuleType(name)
    module.__package__ = name.rpartition(".")[0]
    module.__dict__.update(attrs)
    return module


def _load_real(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with warnings.catch_warnings():  # torch_npu's own files have invalid escape sequences
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", SyntaxWarning)
        spec.loader.exec_module(module)
    return module


def _npu_namespace(npu: ModuleType, torch_npu: ModuleType) -> None:
    """What the real ``npu/__init__.py`` provides that the guard and the real files use."""
    C = torch_npu._C
    state = {"initialized": False}

    def _lazy_init() -> None:
        state["initialized"] = True

    def is_initialized() -> bool:
        return state["initialized"]

    def _launch_host_func(op_stream: Any, fn: Any, user_data: Any) -> None:
        C._launch_host_func(op_stream, fn, user_data)

    def _launch_host_func_pending(op_stream: Any, fn: Any, user_data: Any) -> None:
        C._launch_host_func_pending(op_stream, fn, user_data)

    def _subscribe_report(op_stream: Any) -> None:
        C._subscribe_report(op_stream)

    def _unsubscribe_report(op_stream: Any) -> None:
        C._unsubscribe_report(op_stream)

    for function in (
        _lazy_init, is_initialized, _launch_host_func, _launch_host_func_pending,
        _subscribe_report, _unsubscribe_report,
    ):  # fmt: skip
        function.__module__ = "torch_npu.npu"
        setattr(npu, function.__name__, function)
    npu.is_available = lambda: True
    npu.device_count = lambda: fake_c.DEVICE_COUNT
    npu.empty_cache = C._npu_emptyCache
    npu.host_empty_cache = lambda: None


def build(tree: Path, version: str) -> Sim:
    """Assemble the simulated torch_npu from the wheel's Python files under ``tree``."""
    global _built
    if _built is not None:
        if _built.version != version:
            raise RuntimeError(f"simulation already built from {_built.version}")
        return _built
    if torch._C._get_privateuse1_backend_name() != "npu":
        torch.utils.rename_privateuse1_backend("npu")
    root = tree / "torch_npu"
    torch_npu = _package("torch_npu")
    torch_npu.__version__ = version
    C = fake_c
    modules: dict[str, ModuleType] = {
        "torch_npu": torch_npu,
        "torch_npu._C": C,  # type: ignore[dict-item]
        "torch_npu.utils": _package("torch_npu.utils"),
        "torch_npu.utils.utils": _module(
            "torch_npu.utils.utils", _is_interactive_command_line=lambda: False
        ),
        "torch_npu._compiler": _package("torch_npu._compiler"),
        "torch_npu._compiler._config": _module(
            "torch_npu._compiler._config", force_npugraph_gc=False
        ),
        "torch_npu.utils._path_manager": _module(
            "torch_npu.utils._path_manager", PathManager=type("PathManager", (), {})
        ),
        "torch_npu.npu": _package("torch_npu.npu"),
        "torch_npu.npu._backends": _module(
            "torch_npu.npu._backends", get_soc_version=lambda: "Ascend910B1"
        ),
        "torch_npu.npu._npugraph_handlers": _package("torch_npu.npu._npugraph_handlers"),
        "torch_npu.npu._npugraph_handlers.npugraph_handler": _module(
            "torch_npu.npu._npugraph_handlers.npugraph_handler", _NPU_GRAPH_OP_HANDLERS={}
        ),
        "torch_npu.distributed": _package("torch_npu.distributed"),
        "torch_npu.distributed.distributed_c10d": _module(
            "torch_npu.distributed.distributed_c10d", **fake_dist.npu_distributed_functions()
        ),
    }
    torch_npu._C = C
    previous = _swap_in(modules)
    try:
        npu = modules["torch_npu.npu"]
        torch_npu.npu = npu
        torch_npu.utils = modules["torch_npu.utils"]
        torch_npu.distributed = modules["torch_npu.distributed"]
        torch_npu.distributed.distributed_c10d = modules["torch_npu.distributed.distributed_c10d"]
        c10d = torch_npu.distributed.distributed_c10d
        for public in ("all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven",
                       "all_to_all_vc"):  # fmt: skip
            setattr(torch_npu.distributed, public, getattr(c10d, f"_{public}"))
        _npu_namespace(npu, torch_npu)
        _set_torch_npu(npu)
        for name, relative in _REAL_FILES.items():
            module = _load_real(name, root / relative)
            modules[name] = module
            parent, _, leaf = name.rpartition(".")
            setattr(modules[parent], leaf, module)
            exported = getattr(module, "__all__", [])
            if parent == "torch_npu.npu":
                for attr in exported:
                    setattr(npu, attr, getattr(module, attr))
        npu._get_device_index = modules["torch_npu.npu.utils"]._get_device_index
    finally:
        _restore(previous)
        _set_torch_npu(None)
    _built = Sim(version, modules)
    return _built


def _swap_in(modules: dict[str, ModuleType]) -> dict[str, Any]:
    previous = {name: sys.modules.get(name, _MISSING) for name in modules}
    sys.modules.update(modules)
    return previous


def _restore(previous: dict[str, Any]) -> None:
    for name, value in previous.items():
        if value is _MISSING:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = value


_real_get_accelerator = torch._C._get_accelerator


def _sim_get_accelerator(check: bool = False) -> torch.device:
    """torch_npu registers PrivateUse1 hooks in C++; the simulation cannot, so the one torch
    call that needs them (``torch._C._get_accelerator``, used by ``dist.barrier``) is stubbed."""
    return torch.device("npu", fake_c.STATE.device())


def _set_torch_npu(npu: ModuleType | None) -> None:
    if npu is None:
        if "npu" in vars(torch):
            delattr(torch, "npu")
        sys.modules.pop("torch.npu", None)
        torch._C._get_accelerator = _real_get_accelerator
    else:
        torch.npu = npu  # type: ignore[attr-defined]
        sys.modules["torch.npu"] = npu
        torch._C._get_accelerator = _sim_get_accelerator


def activate(sim: Sim) -> None:
    """Make the simulation importable (``import torch_npu``) and ``torch.npu`` available."""
    if _saved:
        return
    _saved.update(_swap_in(sim.modules))
    _set_torch_npu(sim.modules["torch_npu.npu"])
    fake_dist.activate()


def deactivate() -> None:
    """Undo :func:`activate`: no torch_npu, no ``torch.npu`` left behind."""
    if not _saved:
        return
    fake_dist.deactivate()
    _restore(dict(_saved))
    _saved.clear()
    _set_torch_npu(None)


class SimNPUTensor(torch.Tensor):
    """A CPU tensor that reports an NPU device, with torch_npu's ``record_stream`` check."""

    _sim_index: int

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return torch.device("npu", self._sim_index)

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if getattr(func, "__name__", "") == "record_stream":
            stream = args[1] if len(args) > 1 else kwargs["s"]
            return fake_c.record_stream(args[0], stream)
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)


# What __torch_function__ does stands for torch's C++ dispatch into torch_npu's kernels (a real
# NPU tensor has no Python frame there): its frames belong to module ``torch_npu._C``, so the
# guard's warnings skip them as they skip the real library's frames.
_dispatch = vars(SimNPUTensor)["__torch_function__"].__func__
SimNPUTensor.__torch_function__ = classmethod(  # type: ignore[assignment]
    types.FunctionType(
        _dispatch.__code__, dict(globals(), __name__="torch_npu._C"), _dispatch.__name__,
        _dispatch.__defaults__,
    )
)  # fmt: skip


def npu_tensor(values: Any = (1.0, 2.0, 3.0, 4.0), device: int = 0) -> SimNPUTensor:
    """A small tensor on simulated ``npu:<device>``."""
    tensor = torch.Tensor._make_subclass(SimNPUTensor, torch.tensor(values))
    tensor._sim_index = device
    return tensor
