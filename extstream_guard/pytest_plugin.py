"""pytest plugin (entry point ``pytest11``): run a test session under the guard.

``--extstream-guard=raise|warn|off``, else the ini option ``extstream_guard``, else the env var
``EXTSTREAM_GUARD``, else off. pytest imports this module for every project that has extstream
installed, so it imports nothing heavy: torch_npu is loaded only when a mode other than off is
chosen, and a missing torch_npu is then a usage error that says what to install.
"""

from __future__ import annotations

import os
from typing import Any

_OPTION = "extstream_guard"
_ENV = "EXTSTREAM_GUARD"
_CHOICES = ("raise", "warn", "off")


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("extstream", "torch_npu ExternalStream guard")
    group.addoption(
        "--extstream-guard",
        dest=_OPTION,
        choices=_CHOICES,
        default=None,
        help="install extstream_guard for the session: raise, warn or off "
        f"(default: ini '{_OPTION}', else ${_ENV}, else off)",
    )
    parser.addini(_OPTION, "extstream_guard mode for the session: raise, warn or off", default="")


def _mode(config: Any) -> str:
    value = config.getoption(_OPTION) or config.getini(_OPTION) or os.environ.get(_ENV, "")
    value = str(value).strip().lower() or "off"
    if value not in _CHOICES:
        import pytest

        raise pytest.UsageError(f"extstream_guard mode {value!r}: expected one of raise, warn, off")
    return value


def pytest_configure(config: Any) -> None:
    mode = _mode(config)
    if mode == "off":
        return
    import pytest

    from extstream_guard import install

    try:
        install(mode)
    except ImportError as exc:
        raise pytest.UsageError(f"--extstream-guard={mode}: {exc}") from exc
    config._extstream_guard_installed = True


def pytest_unconfigure(config: Any) -> None:
    if getattr(config, "_extstream_guard_installed", False):
        from extstream_guard import uninstall

        uninstall()


def pytest_report_header(config: Any) -> str | None:
    if getattr(config, "_extstream_guard_installed", False):
        return f"extstream_guard: {_mode(config)}"
    return None
