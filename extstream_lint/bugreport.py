"""What a bug report needs, in one place: the versions line and the request to report.

extstream has no public issue tracker URL yet, so messages never name one; they say what to
include, which is what makes a report useful wherever it is sent. ``extstream-lint --version``
prints :func:`versions` so that one command gives every version a report needs.
"""

from __future__ import annotations

import platform
from importlib import metadata

from . import __version__

__all__ = ["HOW_TO_REPORT", "versions"]

#: Appended to every message about a failure that is extstream's own bug.
HOW_TO_REPORT = (
    "this is a bug in extstream: please report it with this message, the output of "
    "`extstream-lint --version` and the smallest file that reproduces it"
)


def _installed(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions() -> str:
    """``0.1.0 (libcst 1.9.0, flake8 7.5.0) CPython 3.11.7 on Linux``, like ``flake8 --version``.

    Reads installed metadata, never imports libcst, so ``--version`` stays instant.
    """
    return (
        f"{__version__} (libcst {_installed('libcst')}, flake8 {_installed('flake8')}) "
        f"{platform.python_implementation()} {platform.python_version()} on {platform.system()}"
    )
