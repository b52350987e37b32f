"""r61 (p15_plugserve engine.py load_provider, flowfam3): a plugin imported by the dotted
name a module-level table gives for the caller's literal, ``import_module(_PLUGINS[name])``,
and its factory read with ``getattr(module, _FACTORY)``. The import graph saw no edge from
the loader to the plugins (only a literal ``import_module("a.b")`` was one), so they were
not summarised before it, and the loader's module exported no copy per key. Fixed: a
module that calls ``import_module`` of a variable imports the dotted names its string
tables hold (project/modules.py), and the keys are copies (interp/variants.py)."""

import importlib

_PLUGINS = {"acl": "plugins.acl", "pool": "plugins.pool"}
_FACTORY = "make_stream"


def load(name: str, device: int = 0):
    module = importlib.import_module(_PLUGINS[name])
    return getattr(module, _FACTORY)(device)
