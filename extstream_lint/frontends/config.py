"""``[tool.extstream-lint]`` in ``pyproject.toml``: finding, reading and validating it.

The configuration is the nearest ``pyproject.toml`` (from the working directory upwards)
that has a ``[tool.extstream-lint]`` table, like ruff. Command-line flags override it. Any
mistake (unknown key, wrong type, unknown code) is a :class:`ConfigError` with the file and
the key in its text, which the CLI prints and turns into exit status 2: a silently ignored
typo in a linter's configuration is a rule that never runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..project.limits import DEFAULT_MAX_FILE_BYTES

__all__ = [
    "CONFIG_KEYS",
    "Config",
    "ConfigError",
    "find_pyproject",
    "load_config",
    "misspelt_tables",
    "validate_selectors",
]

SECTION = "tool.extstream-lint"

#: Every key ``[tool.extstream-lint]`` accepts, with what it holds (for error messages).
CONFIG_KEYS: Mapping[str, str] = {
    "select": "list of code prefixes to report (default: all XST codes but the opt-in ones)",
    "extend-select": "list of code prefixes added to select",
    "ignore": "list of code prefixes not to report",
    "extend-ignore": "list of code prefixes not to report, added to ignore",
    "exclude": "list of globs of paths to skip, added to the built-in excludes",
    "per-file-ignores": "table of glob = list of code prefixes ignored in matching files",
    "jobs": 'number of processes, or "auto" (default: all cores)',
    "src": "list of extra import roots, relative to this file (like mypy's mypy_path)",
    "cache": "keep module summaries in .extstream_cache/ (default: true)",
    "cache-dir": "one directory for every project's cache, relative to this file (as --cache-dir)",
    "respect-gitignore": "skip files git ignores while walking directories (default: true)",
    "max-file-size": "largest file analysed, in bytes (default: 2000000); a larger one: XST000",
}

# flake8's rule for a code prefix (``flake8.defaults.VALID_CODE_PREFIX``), re-stated so the
# error can say what is wrong.
_PREFIX = re.compile(r"^[A-Z]{1,3}[0-9]{0,3}$")


class ConfigError(Exception):
    """A bad configuration file or a bad option value: exit status 2 with this text."""


@dataclass
class Config:
    """The settings the CLI runs with, once file and flags are merged."""

    #: None: not set (flake8's default: every XST code but the opt-in ones).
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    #: None: not set (flake8's default: the opt-in codes, ``contract.DEFAULT_IGNORE``).
    ignore: tuple[str, ...] | None = None
    extend_ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    jobs: int | None = None
    #: Extra import roots (absolute paths).
    src: tuple[str, ...] = ()
    cache: bool = True
    #: ``cache-dir``: one directory for every project's cache (absolute), or None.
    cache_dir: str | None = None
    #: Skip what ``.gitignore`` (and ``.git/info/exclude``) ignore while walking.
    respect_gitignore: bool = True
    #: The largest file analysed, in bytes (:mod:`..analysis.limits`).
    max_file_size: int = DEFAULT_MAX_FILE_BYTES
    #: The file the settings came from, or None.
    path: str | None = None
    #: Directory relative globs are matched from (the config file's, else the cwd).
    root: str = field(default_factory=os.getcwd)


def find_pyproject(start: str) -> str | None:
    """The nearest ``pyproject.toml`` at or above ``start`` with a ``[tool.extstream-lint]``."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and _has_section(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def misspelt_tables(start: str, stop: str | None = None) -> list[str]:
    """Warnings for tables meant for extstream under another name (``[tool.extstream_lint]``,
    ``[tool.extstream]``) in the ``pyproject.toml`` files from ``start`` up to ``stop`` (the
    configuration in use, whose directory is the last looked at), or to the top. Such a
    table is never read, and a configuration silently ignored is rules that silently run
    with settings the user did not choose."""
    found = []
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start))
    last = os.path.dirname(os.path.abspath(stop)) if stop else None
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate):
            found += [
                f"[tool.{name}] in {candidate} is not read: extstream's table is [{SECTION}]"
                for name in _misspelt(candidate)
            ]
        parent = os.path.dirname(directory)
        if directory == last or parent == directory:
            return found
        directory = parent


def _misspelt(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            if "extstream" not in handle.read().lower():
                return []
        tool = _read_toml(path).get("tool", {})
    except (OSError, ConfigError):
        return []  # the configuration's own reading says what is wrong with the file
    if not isinstance(tool, dict):
        return []
    return sorted(
        name
        for name in tool
        if name != "extstream-lint" and "extstream" in name.lower().replace("_", "-")
    )


def _has_section(path: str) -> bool:
    """Cheap text test before paying for a TOML parse of every pyproject on the way up.

    A ``pyproject.toml`` that cannot be read is an error, not a file without settings:
    skipping it would run with defaults the user did not choose.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read TOML: it is not UTF-8 ({exc.reason})") from exc
    return "extstream-lint" in text and "extstream-lint" in _read_toml(path).get("tool", {})


def _read_toml(path: str) -> dict[str, Any]:
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError as exc:
            raise ConfigError(
                f"{path}: reading pyproject.toml on Python < 3.11 needs the 'tomli' package "
                "(pip install tomli)"
            ) from exc
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, ValueError) as exc:  # TOMLDecodeError is a ValueError
        raise ConfigError(f"{path}: cannot read TOML: {exc}") from exc


def load_config(path: str) -> Config:
    """Read and validate ``[tool.extstream-lint]`` of ``path``."""
    table = _read_toml(path).get("tool", {}).get("extstream-lint", {})
    where = f"[{SECTION}] of {path}"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown key {unknown[0]!r} in {where}; valid keys: {', '.join(CONFIG_KEYS)}"
        )
    config = Config(path=path, root=os.path.dirname(os.path.abspath(path)))
    if "select" in table:
        config.select = validate_selectors(_str_list(table, "select", where), f"{where}: select")
    if "extend-select" in table:
        config.extend_select = validate_selectors(
            _str_list(table, "extend-select", where), f"{where}: extend-select"
        )
    if "ignore" in table:
        config.ignore = validate_selectors(_str_list(table, "ignore", where), f"{where}: ignore")
    if "exclude" in table:
        config.exclude = tuple(_str_list(table, "exclude", where))
    if "extend-ignore" in table:
        config.extend_ignore = validate_selectors(
            _str_list(table, "extend-ignore", where), f"{where}: extend-ignore"
        )
    if "per-file-ignores" in table:
        config.per_file_ignores = _per_file_ignores(table["per-file-ignores"], where)
    if "jobs" in table:
        jobs = table["jobs"]
        if jobs == "auto":  # as -j auto: all cores (None is the default, which is that)
            config.jobs = None
        elif isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ConfigError(f'{where}: jobs must be a positive integer or "auto", not {jobs!r}')
        else:
            config.jobs = jobs
    if "src" in table:
        config.src = tuple(
            os.path.normpath(os.path.join(config.root, item))
            for item in _str_list(table, "src", where)
        )
    if "cache" in table:
        config.cache = _bool(table, "cache", where)
    if "cache-dir" in table:
        value = table["cache-dir"]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: cache-dir must be a directory name, not {value!r}")
        config.cache_dir = os.path.normpath(os.path.join(config.root, value))
    if "respect-gitignore" in table:
        config.respect_gitignore = _bool(table, "respect-gitignore", where)
    if "max-file-size" in table:
        config.max_file_size = positive_size(table["max-file-size"], f"{where}: max-file-size")
    return config


def max_file_size(flag: str | None, config: Config) -> int:
    """``--max-file-size`` if given, else the configured one."""
    return config.max_file_size if flag is None else positive_size(flag, "--max-file-size")


def positive_size(value: Any, where: str) -> int:
    """A size in bytes: a positive integer (``"2MB"`` is an error, not a guess)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)  # from the command line
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{where} must be a positive number of bytes, not {value!r}")
    return value


def _bool(table: Mapping[str, Any], key: str, where: str) -> bool:
    value = table[key]
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: {key} must be true or false, not {value!r}")
    return value


def _str_list(table: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = table[key]
    # ``ignore = "XST101"`` is an error too, as the README says, not a guessed one-item list.
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: {key} must be a list of strings, not {value!r}")
    return value


def _per_file_ignores(value: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where}: per-file-ignores must be a table of glob = [codes], not {value!r}"
        )
    result = []
    for glob in value:
        codes_list = _str_list(value, glob, f"{where}: per-file-ignores")
        result.append((glob, validate_selectors(codes_list, f"{where}: per-file-ignores {glob!r}")))
    return tuple(result)


def split_codes(value: str) -> list[str]:
    """A flag value like ``XST101,XST102`` or ``XST1 XST2`` as a list."""
    return [item for item in re.split(r"[,\s]+", value) if item]


def validate_selectors(codes: Iterable[str], where: str) -> tuple[str, ...]:
    """Check code prefixes: well-formed (flake8's rule), and each must match one of our rules.

    Upper-cases them, so ``xst101`` works as it does for ``--explain``. The rule table is
    imported here, not with the module: flake8 reads the configuration for every file it
    hands the plugin, and most of them need no rule.
    """
    from ..contract import CODE_PREFIX, RULES

    result = []
    for raw in codes:
        code = raw.strip().upper()
        if not _PREFIX.match(code):
            raise ConfigError(
                f"{where}: {raw!r} is not a code prefix (letters then up to 3 digits, "
                "like XST or XST101)"
            )
        # Whatever its letters: these settings are extstream's alone (flake8's shared
        # configuration is flake8's to read), so ``--select E501`` selects nothing, and a
        # run that checks nothing must not look like a clean one.
        if not (code.startswith(CODE_PREFIX) or CODE_PREFIX.startswith(code)) or not any(
            rule.startswith(code) for rule in RULES
        ):
            raise ConfigError(
                f"{where}: {raw!r} matches no extstream code; valid codes: {', '.join(RULES)}"
            )
        result.append(code)
    return tuple(result)
