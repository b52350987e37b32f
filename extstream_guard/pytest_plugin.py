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


def _mode(config: Any) -> tuple[str, str]:
    """The session's mode and where it came from (for messages): flag, ini, env var or default."""
    sources = (
        (config.getoption(_OPTION), "--extstream-guard={}"),
        (config.getini(_OPTION), "ini option extstream_guard = {}"),
        (os.environ.get(_ENV, ""), f"environment variable {_ENV}={{}}"),
    )
    given = next(
        ((str(value).strip(), source) for value, source in sources if str(value or "").strip()),
        None,
    )
    if given is None:
        return "off", "default"
    text, source = given
    mode, where = text.lower(), source.format(text)
    if mode not in _CHOICES:
        import pytest

        raise pytest.UsageError(f"extstream_guard: {where}: expected one of raise, warn, off")
    return mode, where


def pytest_configure(config: Any) -> None:
    mode, where = _mode(config)
    if mode == "off":
        return
    import pytest

    from extstream_guard import install

    try:
        install(mode)
    except ImportError as exc:
        raise pytest.UsageError(f"extstream_guard: {where}: {exc}") from exc
    config._extstream_guard_installed = where


def pytest_unconfigure(config: Any) -> None:
    if getattr(config, "_extstream_guard_installed", None):
        from extstream_guard import uninstall

        uninstall()


def pytest_report_header(config: Any) -> str | None:
    where = getattr(config, "_extstream_guard_installed", None)
    return f"extstream_guard: {_mode(config)[0]} (from {where})" if where else None
