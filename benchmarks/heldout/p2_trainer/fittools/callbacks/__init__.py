"""Callbacks register themselves by name when their class is defined."""

from typing import Dict, Type

REGISTRY: Dict[str, Type["Callback"]] = {}


class Callback:
    name = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            REGISTRY[cls.name] = cls

    def on_step_begin(self, trainer) -> None:
        pass

    def on_step_end(self, trainer) -> None:
        pass


def build(names):
    from . import builtin, offload  # noqa: F401  (registers the built-in callbacks)

    return [REGISTRY[n]() for n in names]
