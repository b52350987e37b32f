"""The serving engine: a backend plugin is imported by name and gives the decode lane."""

import functools
import importlib

import torch
import torch.distributed as dist

from plugserve import providers
from plugserve.providers import StreamProvider

_PLUGIN_MODULES = {
    "aclserve": "plugserve.plugins.aclserve",
    "pool": "plugserve.plugins.pool",
}

_FACTORY = "make_provider"

_PROVIDER_CLASSES = {
    "external": "AclServeProvider",
    "managed": "PoolProvider",
}


def load_provider(name: str, device: int = 0) -> StreamProvider:
    module = importlib.import_module(_PLUGIN_MODULES[name])
    factory = getattr(module, _FACTORY)
    return factory(device)


def provider_for(kind: str, device: int = 0) -> StreamProvider:
    cls = getattr(providers, _PROVIDER_CLASSES[kind])
    return cls(device)


def warm_up_aclserve(x: torch.Tensor) -> torch.Tensor:
    plugin = importlib.import_module("plugserve.plugins.aclserve")
    lane = plugin.make_provider(0).stream()
    done = torch.npu.Event()
    with torch.npu.stream(lane):
        y = x * 2
        done.record()  # expect: XST103
    return y


def warm_up_pool(x: torch.Tensor) -> torch.Tensor:
    plugin = importlib.import_module("plugserve.plugins.pool")
    lane = plugin.make_provider(0).stream()
    done = torch.npu.Event()
    with torch.npu.stream(lane):
        y = x * 2
        done.record()
    done.synchronize()
    return y


class Engine:
    def __init__(self, backend: str, device: int = 0) -> None:
        self.backend = backend
        self.device = device

    @functools.cached_property
    def provider(self) -> StreamProvider:
        return load_provider(self.backend, self.device)

    def decode(self, model: torch.nn.Module, tokens: torch.Tensor) -> torch.Tensor:
        with torch.npu.stream(self.provider.stream()):
            return model(tokens)

    def sync_ranks(self, t: torch.Tensor) -> None:
        with torch.npu.stream(self.provider.stream()):
            dist.all_reduce(t)

    def shutdown(self) -> None:
        torch.npu.synchronize()
