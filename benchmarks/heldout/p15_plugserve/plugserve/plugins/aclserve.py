"""aclserve backend: decode lanes come from the vendor runtime."""

from plugserve.providers import AclServeProvider

NAME = "aclserve"
PROVIDER_CLASS = AclServeProvider


def make_provider(device: int = 0) -> AclServeProvider:
    return AclServeProvider(device)
