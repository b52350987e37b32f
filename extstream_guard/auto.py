"""Opt-in: ``import extstream_guard.auto`` installs the guard in the mode ``EXTSTREAM_GUARD`` names.

``EXTSTREAM_GUARD=raise|warn|off`` (unset means ``raise``: importing this module is the opt-in).
Meant for ``sitecustomize``/entry scripts: ``python -c "import extstream_guard.auto; ..."``.
"""

from __future__ import annotations

import os

from .install import MODES, install

ENV_VAR = "EXTSTREAM_GUARD"


def mode_from_env(default: str = "raise") -> str:
    """The mode named by ``EXTSTREAM_GUARD`` (case-insensitive), or ``default`` when unset."""
    value = os.environ.get(ENV_VAR, "").strip().lower() or default
    if value not in MODES:
        raise ValueError(f"{ENV_VAR}={value!r}: expected one of {', '.join(MODES)}")
    return value


install(mode_from_env())
