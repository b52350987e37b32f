"""``extstream-lint`` / ``python -m extstream_lint``: the standalone command.

It is an adapter like the flake8 plugin: it finds files, runs the same pre-filter (files
that cannot hold an external stream are never parsed), hands the rest to
:func:`extstream_lint.analysis.analyze_source`, applies select/ignore, per-file ignores and
flake8's ``# noqa`` rules, and prints one of the formats of :mod:`extstream_lint.frontends.formats`.

Exit status: 0 nothing found, 1 findings (including files found by walking that could not be
read, reported as XST000 like flake8's E902), 2 a usage, configuration or internal error. A
user's error (a path that does not exist, an output file that cannot be written, a bad
configuration) is one line on stderr; only extstream's own failures print a traceback.

Speed: reading, decoding and the pre-filter run in this process (they are I/O and a few
substring tests, cheaper than shipping files to workers); a process pool is started only when
more than one file passed the pre-filter and more than one job is allowed, and it parses those
files while this process goes on reading.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tokenize
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import IO

from ..bugreport import HOW_TO_REPORT, versions
from ..contract import CODE_PREFIX, DEFAULT_IGNORE, RULES
from ..findings import Finding, cannot_analyse
from ..project.collector import fewer_collections
from ..project.discovery import iter_files, matches_any
from ..project.graph import ImportGraph, graph_for
from ..project.limits import DEFAULT_MAX_FILE_BYTES, set_max_file_bytes
from ..project.modules import installed, one_run
from ..project.prefilter import might_use_external_streams, should_analyse
from ..project.sources import read_project_file
from .config import (
    Config,
    ConfigError,
    find_pyproject,
    load_config,
    max_file_size,
    split_codes,
    validate_selectors,
)
from .formats import FORMATTERS, Located, format_statistics
from .noqa import filter_noqa

__all__ = ["Options", "decode_source", "lint_text", "main", "run"]

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
PROG = "extstream-lint"


class UsageError(Exception):
    """A bad command line: exit status 2 with this text."""


# --- reading --------------------------------------------------------------------------------


def decode_source(data: bytes) -> str:
    """Decode like Python (PEP 263 cookie, BOM) and like flake8 (universal newlines).

    Raises ``SyntaxError`` for a bad coding cookie and ``UnicodeDecodeError`` for bytes
    that the declared encoding cannot decode.
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def _normalize_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` to ``\\n``, so line numbers match flake8's reading of the file."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- analysing ------------------------------------------------------------------------------


def lint_text(
    text: str, filename: str, src: tuple[str, ...] = (), cache: bool = False
) -> list[Finding]:
    """Pre-filter, then the analysis: every finding of one decoded file, unfiltered.

    ``src`` are configured import roots; ``cache`` keeps module summaries on disk.
    """
    with one_run():  # the pre-filter and the analysis look up the same modules: once
        if not should_analyse(text, filename, src, cache):
            return []
        return _analyse(text, filename, src, cache)


def _analyse(text: str, filename: str, src: tuple[str, ...], cache: bool) -> list[Finding]:
    """The analysis of a file that passed the pre-filter (never raises)."""
    try:
        from ..analysis.projects import index_for, kept_findings, release_at_exit

        release_at_exit()
        project = index_for(src, cache)
        text = _normalize_newlines(text)
        kept = kept_findings(text, filename, project)
        if kept is not None:
            return kept
        from ..analysis import analyze_source  # libcst only for files that need it

        return list(analyze_source(text, filename, project=project, kept=False))
    except Exception as exc:  # analyze_source must not raise; one bad file must not end the run
        return [cannot_analyse(f"internal error in the analysis: {exc!r}; {HOW_TO_REPORT}")]


Job = tuple[str, str, tuple[str, ...], bool, int]


def _lint_job(job: Job) -> list[Finding]:
    """Worker entry point (module level so it pickles); the file passed the pre-filter."""
    set_max_file_bytes(job[4])  # the process's bound (a spawned worker's too)
    return _analyse(job[1], job[0], job[2], job[3])


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
    max_file_size: int = DEFAULT_MAX_FILE_BYTES  # the largest file analysed, in bytes
    #: Skip what git ignores while walking directories.
    respect_gitignore: bool = True


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (also what ``--help`` shows)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Find what torch_npu's ExternalStream cannot do. "
        "Exit status: 0 clean, 1 findings, 2 usage or internal error.",
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
        "--format",
        dest="output_format",
        choices=sorted(FORMATTERS),
        default="text",
        help="output format (default: text)",
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
    parser.add_argument("--max-file-size", metavar="BYTES", help="largest file analysed (XST000)")
    parser.add_argument("--config", metavar="FILE", help="read settings from this pyproject.toml")
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    parser.add_argument("--explain", metavar="CODE", help="print the page of a rule and exit")
    parser.add_argument("--version", action="version", version=f"{PROG} {versions()}")
    return parser


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
        max_file_size=max_file_size(args.max_file_size, config),
        respect_gitignore=(
            config.respect_gitignore if args.respect_gitignore is None else args.respect_gitignore
        ),
    )


# --- running --------------------------------------------------------------------------------


def _display(path: str) -> str:
    return os.path.normpath(path)


def _read(path: str) -> str | Finding:
    """The decoded text of ``path``, or the XST000 finding that says why it cannot be read.
    Files are read through :func:`.sources.read_project_file`: once per run, whoever asks."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else read_project_file(os.path.abspath(path))
    except OSError as exc:
        return cannot_analyse(f"cannot read file: {exc.strerror or exc}", unreadable=True)
    try:
        return decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return cannot_analyse(f"cannot decode file: {exc}", unreadable=True)


def _sources(options: Options, graph: ImportGraph) -> Iterator[tuple[str, str | Finding]]:
    """(shown path, decoded text that passed the pre-filter, or the XST000 finding of a
    file that cannot be read). The pre-filter asks the run's import graph: a file whose
    component can hand out no external stream is not read again (and on a warm run, with
    its facts still valid in the cache, not read at all)."""
    if options.paths == ("-",):
        shown = options.stdin_filename
        if shown == "stdin" or not matches_any(shown, options.exclude, options.root):
            content = _read("-")
            if isinstance(content, Finding) or should_analyse(
                content, shown, options.src, options.cache
            ):
                yield shown, content
        return
    files = iter_files(options.paths, options.exclude, options.root, options.respect_gitignore)
    for path in files:
        if path.endswith(".py"):
            absolute = os.path.abspath(path)
            if installed(os.path.dirname(absolute)) or graph.facts(absolute) is None:
                content = _read(path)  # the markers decide, or the reason it cannot be read
                if isinstance(content, Finding) or might_use_external_streams(content):
                    yield _display(path), content
            elif graph.receives(absolute):
                yield _display(path), _read(path)
            continue
        content = _read(path)
        if isinstance(content, Finding) or might_use_external_streams(content):
            yield _display(path), content  # not Python: the markers only


def run(options: Options) -> list[Located]:
    """Lint every file; the kept findings in stable order (path, line, column, code)."""
    texts: dict[str, str] = {}
    raw: list[tuple[str, list[Finding]]] = []
    with (
        fewer_collections(),
        one_run(),
        _Analyser(options.jobs, (options.src, options.cache, options.max_file_size)) as analyser,
    ):
        graph = graph_for(options.src, options.cache)
        for shown, content in _sources(options, graph):
            if isinstance(content, Finding):
                raw.append((shown, [content]))
            else:
                texts[shown] = content
                analyser.submit(shown, content)
        raw.extend(analyser.results())
        graph.sources.save()

    results: list[Located] = []
    for shown, findings in raw:
        kept = [f for f in findings if options.selection.wants(f.code, shown)]
        if kept and not options.disable_noqa and shown in texts:
            kept = filter_noqa(kept, _normalize_newlines(texts[shown]))
        results.extend(Located(shown, f) for f in kept)
    results.sort()
    return results


#: Start method of the worker pool (None: the platform's default). Tests set "fork" so that
#: a monkeypatched analysis reaches the workers.
MP_CONTEXT: BaseContext | None = None


class _Analyser:
    """Runs the analysis on the files that passed the pre-filter.

    With one job, or when only one file needs analysing (the usual case: the pre-filter
    rejects almost everything), it runs in this process and no worker is ever started.
    Otherwise this process first makes the summaries of every module the files import,
    bottom-up (each module read and parsed once, in one place), and only then starts the
    workers: forked, they inherit those summaries and the run's parsed trees, so no file
    is read or parsed twice, and the per-file analyses run in parallel.
    """

    def __init__(self, processes: int, settings: tuple[tuple[str, ...], bool, int]) -> None:
        self.processes = processes
        self.settings = settings  # src, cache, max-file-size
        self.pending: list[Job] = []

    def __enter__(self) -> _Analyser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def submit(self, shown: str, text: str) -> None:
        self.pending.append((shown, text, *self.settings))

    def results(self) -> list[tuple[str, list[Finding]]]:
        if self.processes <= 1 or len(self.pending) < 2:
            return [(job[0], _lint_job(job)) for job in self.pending]
        _prepare(self.pending)
        done: list[tuple[str, list[Finding]]] = []
        workers = min(self.processes, len(self.pending))
        with ProcessPoolExecutor(max_workers=workers, mp_context=MP_CONTEXT) as pool:
            futures = [(job[0], pool.submit(_lint_job, job)) for job in self.pending]
            for shown, future in futures:
                try:
                    done.append((shown, future.result()))
                except BrokenProcessPool as exc:  # a worker died (e.g. killed): report the file
                    reason = f"the analysis process died: {exc}; {HOW_TO_REPORT}"
                    done.append((shown, [cannot_analyse(reason)]))
        return done


def _prepare(jobs: list[Job]) -> None:
    """Make the summaries the files need, here, before the workers fork (never raises:
    a failure here only means the workers compute what they need themselves)."""
    try:
        from ..analysis.projects import index_for

        for shown, _text, src, cache, size in jobs:
            set_max_file_bytes(size)
            index_for(src, cache).prepare(os.path.abspath(shown))
    except Exception:
        return


def _explain(code: str) -> int:
    from .docs import render_rule

    rule = RULES.get(code.strip().upper())
    if rule is None:
        print(
            f"{PROG}: error: unknown code {code!r}; valid codes: {', '.join(RULES)}",
            file=sys.stderr,
        )
        return EXIT_ERROR
    sys.stdout.write(render_rule(rule) + "\n")
    return EXIT_CLEAN


def _open_output(path: str) -> IO[str]:
    """``--output-file``, opened before the run so that a wrong path costs no lint run."""
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(_cannot_write(path, exc)) from exc


def _cannot_write(path: str, exc: OSError) -> str:
    return f"--output-file: cannot write {path!r}: {exc.strerror or exc}"


def _emit(options: Options, results: list[Located], output: IO[str] | None) -> None:
    report = FORMATTERS[options.output_format](results)
    stats = format_statistics(results) if options.statistics else ""
    machine = options.output_format in ("json", "sarif")
    if output is not None:
        try:
            output.write(report)
            output.flush()
        except OSError as exc:  # a full disk, a file that refuses writes
            with contextlib.suppress(OSError):  # closing flushes, and fails, again
                output.close()
            raise UsageError(_cannot_write(output.name, exc)) from exc
        sys.stdout.write(stats)
        return
    sys.stdout.write(report)
    if stats:
        # json and sarif keep stdout one parseable document.
        (sys.stderr if machine else sys.stdout).write(stats)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit status (0 clean, 1 findings, 2 error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help/--version exit 0, bad usage exits 2
        return int(exc.code or 0)
    if args.explain is not None:
        return _explain(args.explain)
    try:
        with contextlib.ExitStack() as closing:
            options = make_options(args)
            output = None
            if options.output_file:
                output = closing.enter_context(_open_output(options.output_file))
            results = run(options)
            _emit(options, results, output)
    except (UsageError, ConfigError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except BrokenPipeError:  # `extstream-lint . | head`: stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as exc:  # an internal error must not look like a clean run
        import traceback

        traceback.print_exc()
        print(f"{PROG}: internal error: {exc!r}; {HOW_TO_REPORT}", file=sys.stderr)
        return EXIT_ERROR
    if results and not options.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN
