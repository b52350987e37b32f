"""Default backend: torch_npu pool streams."""

from plugserve.providers import PoolProvider

NAME = "pool"
PROVIDER_CLASS = PoolProvider


def make_provider(device: int = 0) -> PoolProvider:
    return PoolProvider(device)
