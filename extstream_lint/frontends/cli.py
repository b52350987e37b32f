"""``extstream-lint`` / ``python -m extstream_lint``: the standalone command.

It is an adapter like the flake8 plugin: it finds files, runs the same pre-filter (files
that cannot hold an external stream are never parsed), hands the rest to
:func:`extstream_lint.analysis.analyze_source`, applies select/ignore, per-file ignores and
flake8's ``# noqa`` rules, and prints one of the formats of :mod:`extstream_lint.frontends.formats`.

Exit status: 0 nothing found, 1 findings (including files found by walking that could not be
read, reported as XST000 like flake8's E902), 2 a usage, configuration or internal error, 130
interrupted (Ctrl-C: silence, as a shell expects, from this process and from its workers). A
user's error (a path that does not exist, an output file that cannot be written, a bad
configuration) is one line on stderr; only extstream's own failures print a traceback.

Speed: reading, decoding and the pre-filter run in this process (they are I/O and a few
substring tests, cheaper than shipping files to workers); a process pool is started only when
more than one file passed the pre-filter and more than one job is allowed, and it parses those
files while this process goes on reading.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import IO

from ..bugreport import HOW_TO_REPORT
from ..contract import RULES
from ..findings import Finding, cannot_analyse
from ..project.collector import fewer_collections
from ..project.discovery import iter_files, matches_any
from ..project.diskio import cache_home, set_cache_dir
from ..project.graph import ImportGraph, graph_for
from ..project.limits import max_file_bytes, set_max_file_bytes, too_large
from ..project.modules import installed, one_run
from ..project.prefilter import might_use_external_streams, should_analyse
from ..project.regular import TooLarge, read_head
from ..project.sources import decode_python, read_project_file
from .commands import add_noqa, fix_stdin, list_rules, show_files, show_settings
from .config import ConfigError
from .fixes import apply_edits, still_parses, unified_diff, write_or_warn
from .formats import FORMATTERS, Located, format_full, format_statistics, repository_root
from .linting import analyse_one, lint_text, located
from .options import PROG, Options, Selection, UsageError, build_parser, make_options

__all__ = [
    "Options",
    "Selection",
    "build_parser",
    "decode_source",
    "lint_text",
    "located",
    "main",
    "run",
]

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: 128 + SIGINT: what a shell reports for a program that Ctrl-C stopped.
EXIT_INTERRUPTED = 130


# --- reading --------------------------------------------------------------------------------


def decode_source(data: bytes) -> str:
    """Decode as flake8 reads a file (:func:`.sources.decode_python`: PEP 263, else
    latin-1); never raises. Newlines stay as they are."""
    return decode_python(data)


# --- analysing ------------------------------------------------------------------------------


#: The old name of :func:`.linting.analyse_one` (tests of the project index call it).
_analyse = analyse_one

Job = tuple[str, str, tuple[str, ...], bool, int]


def _start_worker(cache_home: str | None) -> None:
    """A worker leaves Ctrl-C to the main process (which stops it): the terminal sends
    SIGINT to the whole process group, and a worker's traceback would be noise. It keeps
    the cache where the main process does (``--cache-dir``; a spawned worker's too)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    set_cache_dir(cache_home)


def _lint_job(job: Job) -> list[Finding]:
    """Worker entry point (module level so it pickles); the file passed the pre-filter."""
    set_max_file_bytes(job[4])  # the process's bound (a spawned worker's too)
    return analyse_one(job[1], job[0], job[2], job[3])


# --- running --------------------------------------------------------------------------------


def _display(path: str) -> str:
    return os.path.normpath(path)


def _read(path: str, shown: str) -> str | Finding:
    """The decoded text of ``path``, or the XST000 finding that says why it cannot be read.
    Files are read through :func:`.sources.read_project_file`: once per run, whoever asks.
    A file over the size limit is not read (its size on disk says so; stdin is read to one
    byte past the limit): its XST000 may still be silenced on line 1, so the text of its
    first lines is kept for its noqa comment (:data:`_HEADS`)."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(max_file_bytes() + 1)
            if len(data) > max_file_bytes():
                raise TooLarge(0, "larger than the limit", path)
        else:
            data = read_project_file(os.path.abspath(path))
    except TooLarge as large:
        _HEADS[shown] = _head(path, data if path == "-" else None)
        return cannot_analyse(too_large(large.size))
    except OSError as exc:
        return cannot_analyse(f"cannot read file: {exc.strerror or exc}", unreadable=True)
    return decode_source(data)


#: The first lines of each file over the size limit, by shown path: what noqa reads.
_HEADS: dict[str, str] = {}

#: How much of an over-limit file is read for the noqa comment of its finding on line 1.
_HEAD_BYTES = 1 << 16


def _head(path: str, data: bytes | None) -> str:
    """The first whole lines of ``path`` (or of ``data``), at most :data:`_HEAD_BYTES`."""
    if data is None:
        try:
            data = read_head(path, _HEAD_BYTES)
        except OSError:
            return ""
    head = decode_source(data[:_HEAD_BYTES])
    cut = max(head.rfind("\n"), head.rfind("\r"))
    return head[: cut + 1] if cut >= 0 else head


def _sources(
    options: Options, graph: ImportGraph, listed: list[str]
) -> Iterator[tuple[str, str | Finding]]:
    """(shown path, decoded text that passed the pre-filter, or the XST000 finding of a
    file that cannot be read). The pre-filter asks the run's import graph: a file whose
    component can hand out no external stream is not read again (and on a warm run, with
    its facts still valid in the cache, not read at all)."""
    if options.paths == ("-",):
        shown = options.stdin_filename
        if shown == "stdin" or not matches_any(shown, options.exclude, options.root):
            content = _read("-", shown)
            if isinstance(content, Finding) or should_analyse(
                content, shown, options.src, options.cache
            ):
                yield shown, content
        return
    unlisted: list[tuple[str, OSError]] = []
    files = iter_files(
        options.paths, options.exclude, options.root, options.respect_gitignore, unlisted
    )
    for path in files:
        listed.append(path)
        if path.endswith(".py"):
            absolute = os.path.abspath(path)
            if installed(os.path.dirname(absolute)) or graph.facts(absolute) is None:
                content = _read(path, _display(path))  # the markers decide, or why it is unread
                if isinstance(content, Finding) or might_use_external_streams(content):
                    yield _display(path), content
            elif graph.receives(absolute):
                yield _display(path), _read(path, _display(path))
            continue
        content = _read(path, _display(path))
        if isinstance(content, Finding) or might_use_external_streams(content):
            yield _display(path), content  # not Python: the markers only
    for directory, error in unlisted:  # what was not linted is said, like a file unread
        reason = f"cannot list directory: {error.strerror or error}"
        yield _display(directory), cannot_analyse(reason, unreadable=True)


def run(options: Options) -> list[Located]:
    """Lint every file; the kept findings in stable order (path, line, column, code)."""
    set_max_file_bytes(options.max_file_size)  # files are read no further than it allows
    set_cache_dir(options.cache_dir)
    texts: dict[str, str] = {}
    raw: list[tuple[str, list[Finding]]] = []
    with (
        fewer_collections(),
        one_run(),
        _Analyser(options.jobs, (options.src, options.cache, options.max_file_size)) as analyser,
    ):
        graph = graph_for(options.src, options.cache)
        listed: list[str] = []
        for shown, content in _sources(options, graph, listed):
            if isinstance(content, Finding):
                raw.append((shown, [content]))
            else:
                texts[shown] = content
                analyser.submit(shown, content)
        raw.extend(analyser.results())
        graph.sources.save()
    if not listed and options.paths != ("-",) and not options.quiet:
        # ruff's words: checking nothing must not look like a clean run
        print(f"{PROG}: warning: No Python files found under the given path(s)", file=sys.stderr)

    # what needs the fixes: the text report's hint, SARIF's fixes, --fix and --diff
    fixing = options.output_format in ("text", "full", "sarif") or options.fix or options.diff
    results: list[Located] = []
    for shown, findings in raw:
        results.extend(
            located(options, shown, texts.get(shown), findings, fixing, head=_HEADS.get(shown))
        )
    results.sort()
    _TEXTS.clear()
    _TEXTS.update(texts)
    _HEADS.clear()
    return results


#: The decoded text of each file the last :func:`run` linted: what ``--fix`` and ``--diff``
#: edit (a file changed since is left alone).
_TEXTS: dict[str, str] = {}


def _wanted(options: Options, results: list[Located]) -> list[Located]:
    """The findings whose fix this run applies: the safe ones, and with
    ``--unsafe-fixes`` the others."""
    return [r for r in results if r.fix and (r.fix.safe or options.unsafe_fixes)]


def _writable_trees(options: Options) -> list[str]:
    """The trees a fix (or ``--add-noqa``) may write in: each directory linted, and each
    linted file's own directory."""
    return [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in options.paths]


def _apply_fixes(options: Options, results: list[Located]) -> int:
    """``--fix`` (write) or ``--diff`` (print); the number of findings fixed (or fixable)."""
    by_path: dict[str, list[Located]] = {}
    for r in _wanted(options, results):
        by_path.setdefault(r.path, []).append(r)
    trees = _writable_trees(options)
    count = 0
    for path, fixed_here in sorted(by_path.items()):
        before = _TEXTS.get(path)
        if before is None:
            continue
        edits = [edit for r in fixed_here if r.fix for edit in r.fix.edits]
        if not still_parses(before, apply_edits(before, edits)):  # a bug of ours: say so
            print(
                f"{PROG}: warning: not fixed, the fix would not parse: {path}; {HOW_TO_REPORT}",
                file=sys.stderr,
            )
            continue
        if options.diff:
            sys.stdout.write(unified_diff(path, before, apply_edits(before, edits)))
            count += len(fixed_here)
            continue
        refused = PROG + ": warning: not fixed, {reason}: {path}"
        failed = PROG + ": warning: cannot fix {path}: {error}"
        if write_or_warn(path, before, edits, trees, refused, failed):
            count += len(fixed_here)
    return count


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 'es' if word.endswith('x') else 's'}"


def _fix_summary(options: Options, results: list[Located], fixed: int) -> str:
    """ruff's summary lines: what was fixed, or what ``--fix`` would fix, and the fixes only
    ``--unsafe-fixes`` applies. Empty when no finding has a fix and none was fixed."""
    if options.diff:
        return f"Would fix {_plural(fixed, 'error')}.\n" if fixed else "No errors would be fixed.\n"
    if options.fix:
        found = fixed + len(results)
        if not found:
            return ""
        return f"Found {_plural(found, 'error')} ({fixed} fixed, {len(results)} remaining).\n"
    fixable = len(_wanted(options, results))
    hidden = sum(1 for r in results if r.fix and not r.fix.safe and not options.unsafe_fixes)
    if not fixable and not hidden:
        return ""
    note = (
        f"{_plural(hidden, 'hidden fix')} can be enabled with the `--unsafe-fixes` option"
        if hidden
        else ""
    )
    head = f"Found {_plural(len(results), 'error')}.\n"
    if not fixable:
        return f"{head}No fixes available ({note}).\n"
    tail = f" ({note})" if note else ""
    return f"{head}[*] {fixable} fixable with the `--fix` option{tail}.\n"


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
        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=MP_CONTEXT,
            initializer=_start_worker,
            initargs=(cache_home(),),
        )
        try:
            with _sigint_held():  # workers forked now inherit it blocked, never half-started
                futures = [(job[0], pool.submit(_lint_job, job)) for job in self.pending]
            for shown, future in futures:
                try:
                    done.append((shown, future.result()))
                except BrokenProcessPool as exc:  # a worker died (e.g. killed): report the file
                    reason = f"the analysis process died: {exc}; {HOW_TO_REPORT}"
                    done.append((shown, [cannot_analyse(reason)]))
        except KeyboardInterrupt:
            _stop(pool)
            raise
        pool.shutdown()
        return done


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """SIGINT blocked in this thread while it forks the workers: a Ctrl-C then is delivered
    when the block ends, here, and never reaches a worker before it ignores SIGINT."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows: the initializer alone
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Ctrl-C: no file is waited for. The workers ignore SIGINT, so they are ended here."""
    for worker in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            worker.terminate()
    # then wait for the pool's thread, which sees them gone: left running, it would print a
    # traceback of its own at interpreter exit
    pool.shutdown(wait=True, cancel_futures=True)


def _prepare(jobs: list[Job]) -> None:
    """Make the summaries the files need, here, before the workers fork (never raises:
    a failure here only means the workers compute what they need themselves)."""
    try:
        from ..analysis.driver.projects import index_for

        for shown, _text, src, cache, size in jobs:
            set_max_file_bytes(size)
            index_for(src, cache).prepare(os.path.abspath(shown))
    except Exception:
        return


def _explain(code: str) -> int:
    from .docs import render_rule

    if not code.strip():  # --explain alone: every rule, one a line
        sys.stdout.write(list_rules())
        return EXIT_CLEAN

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


def _run_root(options: Options) -> str:
    """The repository root of the linted paths (SARIF's ``%SRCROOT%``, GitHub's paths)."""
    paths = [os.path.abspath(p) for p in options.paths if p != "-"] or [os.getcwd()]
    return repository_root(os.path.commonpath(paths))


def _emit(options: Options, results: list[Located], output: IO[str] | None) -> None:
    if options.output_format == "full":  # the source lines: stdin's is only in _TEXTS
        report = format_full(results, sources=_TEXTS)
    else:
        report = FORMATTERS[options.output_format](results, root=_run_root(options))
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
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["server"]:  # ruff's spelling; a directory named server is ./server
        from .server import serve

        return serve(argv[1:])
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
            if not options.quiet:
                for warning in options.warnings:
                    print(f"{PROG}: warning: {warning}", file=sys.stderr)
            if args.show_settings or args.show_files:
                shown = show_settings(options) if args.show_settings else show_files(options)
                sys.stdout.write(shown)
                return EXIT_CLEAN
            output = None
            if options.output_file:
                output = closing.enter_context(_open_output(options.output_file))
            results = run(options)
            if options.add_noqa:
                added = add_noqa(results, _TEXTS, _writable_trees(options))
                if not options.quiet:
                    print(f"Added {_plural(added, 'noqa directive')}.", file=sys.stderr)
                return EXIT_CLEAN
            if options.fix and not options.diff and options.paths == ("-",):
                return fix_stdin(options, results, next(iter(_TEXTS.values()), ""))
            fixed = 0
            if options.fix or options.diff:
                fixed = _apply_fixes(options, results)
                if options.diff:
                    sys.stderr.write(_fix_summary(options, results, fixed))
                    return EXIT_FINDINGS if fixed and not options.exit_zero else EXIT_CLEAN
                if fixed:  # what is left, as the fixed files now say
                    results = run(options)
            _emit(options, results, output)
            # ruff's summary, on stderr: stdout stays flake8's lines (or one document); the
            # machine formats get it only when --fix changed files
            if (options.output_format in ("text", "full") or options.fix) and not options.quiet:
                sys.stderr.write(_fix_summary(options, results, fixed))
    except (UsageError, ConfigError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
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
