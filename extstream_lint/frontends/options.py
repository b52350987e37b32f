"""The command line of ``extstream-lint``: its flags, and the options a run is made of.

Apart from :mod:`.cli` (which runs) so that each stays readable: this module turns argv and
``[tool.extstream-lint]`` into one :class:`Options`, and raises :class:`UsageError` for a
bad command line before any file is read.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import NoReturn

from ..bugreport import versions
from ..contract import CODE_PREFIX, DEFAULT_IGNORE
from ..project.discovery import matches_any
from ..project.limits import DEFAULT_MAX_FILE_BYTES
from .config import (
    Config,
    ConfigError,
    find_pyproject,
    load_config,
    max_file_size,
    misspelt_tables,
    split_codes,
    validate_selectors,
)
from .formats import FORMATTERS

__all__ = ["PROG", "Options", "Selection", "UsageError", "build_parser", "make_options"]

PROG = "extstream-lint"


class UsageError(Exception):
    """A bad command line: exit status 2 with this text."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line (ruff's and the README's promise), not
    argparse's usage block: the block hides the one line that says what is wrong."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


# --- selecting ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """flake8's select/ignore decision (``flake8.style_guide.DecisionEngine``), re-stated.

    ``select`` and ``ignore`` are the effective lists; ``explicit_select`` and
    ``explicit_ignore`` what the user wrote (flags or configuration, ``None``: the same as
    the effective list). A code both selected and ignored goes to the explicit side; if both
    or neither are explicit, the longer prefix wins and ties ignore. So the opt-in codes,
    ignored by default, are reported once a selection names them (``--extend-select XST211``,
    or an explicit ``--select XST``), exactly as flake8 treats ``extend-default-ignore``.
    """

    select: tuple[str, ...]
    ignore: tuple[str, ...]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...]
    root: str
    explicit_select: tuple[str, ...] | None = None
    explicit_ignore: tuple[str, ...] | None = None

    def wants(self, code: str, path: str) -> bool:
        if not self._selected(code):
            return False
        for glob, codes in self.per_file_ignores:
            if code.startswith(codes) and matches_any(path, [glob], self.root):
                return False
        return True

    def _selected(self, code: str) -> bool:
        explicit_select = self.select if self.explicit_select is None else self.explicit_select
        explicit_ignore = self.ignore if self.explicit_ignore is None else self.explicit_ignore
        selected = (
            _EXPLICIT
            if code.startswith(explicit_select)
            else (_IMPLICIT if code.startswith(self.select) else None)
        )
        ignored = (
            _EXPLICIT
            if code.startswith(explicit_ignore)
            else (_IMPLICIT if code.startswith(self.ignore) else None)
        )
        if ignored is None:
            return selected is not None
        if selected is None:
            return False
        if selected != ignored:
            return selected == _EXPLICIT
        select = _first_match(self.select, code)
        ignore = _first_match(self.ignore, code)
        return len(select) > len(ignore)


_EXPLICIT, _IMPLICIT = "explicit", "implicit"


def _first_match(prefixes: tuple[str, ...], code: str) -> str:
    """flake8's pick among matching prefixes: the first in reverse sorted order."""
    return next(p for p in sorted(prefixes, reverse=True) if code.startswith(p))


# --- options --------------------------------------------------------------------------------


@dataclass
class Options:
    """Everything one run needs, after merging the configuration file and the flags."""

    paths: tuple[str, ...]
    selection: Selection
    exclude: tuple[str, ...]
    root: str
    jobs: int
    output_format: str = "text"
    disable_noqa: bool = False
    statistics: bool = False
    exit_zero: bool = False
    stdin_filename: str = "stdin"
    output_file: str | None = None
    #: Configured import roots, and whether summaries are kept in .extstream_cache/.
    src: tuple[str, ...] = ()
    cache: bool = True
    #: ``--cache-dir`` / ``cache-dir``: one directory for every project's cache, or None.
    cache_dir: str | None = None
    max_file_size: int = DEFAULT_MAX_FILE_BYTES  # the largest file analysed, in bytes
    #: Skip what git ignores while walking directories.
    respect_gitignore: bool = True
    #: ``--fix`` (write the fixes), ``--unsafe-fixes`` (count and apply the unsafe ones too),
    #: ``--diff`` (print the fixes as a diff, write nothing).
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    #: ``-q``: the findings and nothing else (no summary, no warning).
    quiet: bool = False
    #: ``--add-noqa``: write ``# noqa: CODE`` on each finding's line instead of reporting.
    add_noqa: bool = False
    #: Where the settings came from (``--show-settings``): the configuration file, or None.
    config_path: str | None = None
    #: What the configuration's reading warns about (printed unless ``-q``).
    warnings: tuple[str, ...] = ()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also what ``--help`` shows)."""
    parser = _Parser(
        prog=PROG,
        description="Find what torch_npu's ExternalStream cannot do. "
        "Exit status: 0 clean, 1 findings, 2 usage or internal error, 130 interrupted.",
        epilog=f"{PROG} server: the language server for editors (LSP over stdio; "
        "docs/editors.md). A directory named server is ./server.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories to lint (default: .); '-' reads stdin",
    )
    parser.add_argument(
        "--select",
        metavar="CODES",
        help="code prefixes to report (default: XST but the opt-in codes)",
    )
    parser.add_argument(
        "--extend-select", metavar="CODES", help="code prefixes to report in addition"
    )
    parser.add_argument("--ignore", metavar="CODES", help="code prefixes not to report")
    parser.add_argument(
        "--extend-ignore", metavar="CODES", help="code prefixes not to report, in addition"
    )
    parser.add_argument(
        "--exclude", metavar="GLOBS", help="globs to skip, replacing the configured ones"
    )
    parser.add_argument(
        "--extend-exclude", metavar="GLOBS", help="globs to skip in addition to the configured ones"
    )
    parser.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="skip files that .gitignore or .git/info/exclude ignore while walking directories "
        "(default: yes; named files are always linted)",
    )
    parser.add_argument(
        "--disable-noqa", action="store_true", help="report findings even on '# noqa' lines"
    )
    parser.add_argument(
        "--output-format",
        "--format",
        dest="output_format",
        choices=sorted(FORMATTERS),
        default="text",
        help="output format (default: text; full adds the source line and a caret)",
    )
    parser.add_argument(
        "--fix", action="store_true", help="apply fixes to resolve findings, where possible"
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="include fixes that may not retain the original intent of the code",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="avoid writing any fixed files back; instead, output a diff for each changed file",
    )
    parser.add_argument("--output-file", metavar="FILE", help="write the report to FILE")
    parser.add_argument("--statistics", action="store_true", help="count findings per code")
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    parser.add_argument(
        "-j", "--jobs", metavar="N", help="processes to use, or 'auto' (default: all cores)"
    )
    parser.add_argument(
        "--stdin-filename", metavar="NAME", help="name shown and matched for '-' (stdin)"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write module summaries in .extstream_cache/",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep every project's cache below DIR (default: .extstream_cache/ in each "
        "project; also $EXTSTREAM_CACHE_DIR)",
    )
    parser.add_argument("--max-file-size", metavar="BYTES", help="largest file analysed (XST000)")
    parser.add_argument("--config", metavar="FILE", help="read settings from this pyproject.toml")
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    parser.add_argument(
        "--explain",
        metavar="CODE",
        nargs="?",
        const="",
        help="print the page of a rule and exit; with no CODE, list every rule",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print the findings and nothing else"
    )
    parser.add_argument(
        "--add-noqa",
        action="store_true",
        help="add '# noqa: CODE' to every line with a finding, and print nothing else",
    )
    parser.add_argument(
        "--show-settings", action="store_true", help="print the settings a run would use and exit"
    )
    parser.add_argument(
        "--show-files", action="store_true", help="print the files a run would lint and exit"
    )
    parser.add_argument("--version", action=_Version)
    return parser


class _Version(argparse.Action):
    """argparse's ``version`` action, the text made when asked for: every run builds the
    parser, and the versions read installed metadata (a fifth of a warm run's own work)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> NoReturn:
        print(f"{PROG} {versions()}")  # to stdout, as argparse's own action does
        parser.exit()


def _codes(value: str | None, flag: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    try:
        return validate_selectors(split_codes(value), flag)
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc


def _globs(value: str | None) -> tuple[str, ...] | None:
    return None if value is None else tuple(g.strip() for g in value.split(",") if g.strip())


def _jobs(value: str | None, configured: int | None) -> int:
    """``-j`` wins over ``jobs =``; ``auto`` (either) or neither: all cores."""
    if value is None or value == "auto":
        return configured if value is None and configured else (os.cpu_count() or 1)
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise UsageError(f"-j/--jobs must be a positive integer or 'auto', not {value!r}")
    return jobs


def _config(args: argparse.Namespace) -> Config:
    if args.isolated:
        return Config()
    path = args.config if args.config else find_pyproject(os.getcwd())
    if path is None:
        return Config()
    if not os.path.exists(path):
        raise UsageError(f"--config: no such file: {path}")
    if not os.path.isfile(path):
        raise UsageError(f"--config: not a file: {path}")
    return load_config(path)


def make_options(args: argparse.Namespace) -> Options:
    """Merge the configuration file and the flags (flags win; extend-* add)."""
    config = _config(args)
    select = _codes(args.select, "--select") or config.select
    extend_select = config.extend_select + (_codes(args.extend_select, "--extend-select") or ())
    ignore = _codes(args.ignore, "--ignore")
    if ignore is None:
        ignore = config.ignore
    extend_ignore = config.extend_ignore + (_codes(args.extend_ignore, "--extend-ignore") or ())
    exclude = _globs(args.exclude)
    paths = tuple(args.paths) or (".",)  # like flake8 and ruff
    if "-" in paths and len(paths) > 1:
        raise UsageError("'-' (stdin) cannot be combined with other paths")
    if args.stdin_filename and "-" not in paths:
        raise UsageError("--stdin-filename needs '-' (stdin) as the path")
    if args.stdin_filename and os.path.isdir(args.stdin_filename):
        raise UsageError(
            f"--stdin-filename: {args.stdin_filename!r} is a directory; "
            "give the name of the file being linted"
        )
    if args.add_noqa and (args.fix or args.diff or paths == ("-",)):
        raise UsageError("--add-noqa writes files: not with --fix, --diff or '-' (stdin)")
    # A typo is not a file that cannot be read: no finding, whatever `ignore` says.
    missing = [path for path in paths if path != "-" and not os.path.exists(path)]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(map(repr, missing))}")
    return Options(
        paths=paths,
        selection=Selection(
            select=(select or (CODE_PREFIX,)) + extend_select,
            ignore=(DEFAULT_IGNORE if ignore is None else ignore) + extend_ignore,
            per_file_ignores=config.per_file_ignores,
            root=config.root,
            explicit_select=(select or ()) + extend_select,
            explicit_ignore=(ignore or ()) + extend_ignore,
        ),
        exclude=(config.exclude if exclude is None else exclude)
        + (_globs(args.extend_exclude) or ()),
        root=config.root,
        jobs=_jobs(args.jobs, config.jobs),
        output_format=args.output_format,
        disable_noqa=args.disable_noqa,
        statistics=args.statistics,
        exit_zero=args.exit_zero,
        stdin_filename=args.stdin_filename or "stdin",
        output_file=args.output_file,
        src=config.src,
        cache=config.cache and not args.no_cache,
        cache_dir=args.cache_dir or config.cache_dir,
        max_file_size=max_file_size(args.max_file_size, config),
        respect_gitignore=(
            config.respect_gitignore if args.respect_gitignore is None else args.respect_gitignore
        ),
        fix=args.fix,
        unsafe_fixes=args.unsafe_fixes,
        diff=args.diff,
        quiet=args.quiet,
        add_noqa=args.add_noqa,
        config_path=config.path,
        warnings=()
        if args.isolated
        else tuple(misspelt_tables(args.config or os.getcwd(), config.path)),
    )
