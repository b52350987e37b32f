"""The flake8 adapter: turns :func:`extstream_lint.analysis.analyze_source` into flake8 results.

It uses what flake8 already has — the decoded ``lines`` (so stdin and editors work) and the
``ast`` ``tree`` (used for exact positions) — and never reopens the file. Files that cannot
contain an external stream are skipped by a regex before libcst is even imported, which
keeps the plugin's cost on ordinary code close to zero.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..project.prefilter import should_analyse

if TYPE_CHECKING:
    from ..project.modules import _Run


#: :data:`.contract.DEFAULT_IGNORE`, written out (a test checks it): flake8 asks for it in
#: every run, and importing the rule table costs 4 ms of a 0.3 s run on one file.
OPT_IN = ("XST202", "XST211")


class ExtStreamChecker:
    """flake8 AST plugin. Field names are flake8's parameter names, so tests can build it."""

    name = "extstream"
    version = __version__
    #: The run flake8 started at option parsing (:func:`.modules.new_run`); None before.
    _flake8_run: _Run | None = None

    @staticmethod
    def add_options(option_manager: Any) -> None:
        """The opt-in codes are off unless selected: flake8's ``extend-default-ignore``."""
        option_manager.extend_default_ignore(OPT_IN)

    def __init__(self, tree: ast.AST, lines: list[str], filename: str = "<unknown>") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def parse_options(cls, options: object) -> None:
        """flake8 calls this once per run (and once per worker process), before any file:
        the start of a run, whose import graph and summaries serve every file of it. flake8
        has no end-of-run hook; the next run (a new flake8 process, or an editor starting
        flake8 again in-process) starts afresh here, so edits are always seen. The run is
        active only while this checker lints a file, never between calls."""
        from ..project.modules import new_run

        cls._flake8_run = new_run()

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from ..project.modules import one_run

        # flake8's run, or one of its own when the checker is built directly
        with one_run(self._flake8_run):
            yield from self._run()

    def _run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        src, cache, size = _settings(self.filename)
        needed = should_analyse(source, self.filename, src, cache)
        if cache and "import" in source:  # the pre-filter read the import graph's facts
            from ..project.sources import source_facts

            source_facts(src, cache).save_at_exit()
        if not needed:
            return
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        try:
            from ..analysis.driver.projects import index_for, kept_findings
            from ..project.limits import set_max_file_bytes

            set_max_file_bytes(size)
            project = index_for(src, cache)
            findings = kept_findings(source, self.filename, project)
            if findings is None:
                from ..analysis import analyze_source  # libcst only when a file needs it

                _heavy_run()

                findings = analyze_source(
                    source, self.filename, tree=tree, project=project, kept=False
                )
        except Exception as error:  # a broken install must not abort the user's flake8 run
            from ..bugreport import HOW_TO_REPORT
            from ..findings import cannot_analyse  # dataclasses: only where a file is analysed

            reason = f"the analysis could not run, {type(error).__name__}: {error}; {HOW_TO_REPORT}"
            findings = [cannot_analyse(reason)]
        if any(".py" in finding.message for finding in findings):
            from .trace import openable  # other modules' paths, from the working directory

            findings = [openable(finding, self.filename, src) for finding in findings]
        for finding in findings:
            yield finding.line, finding.col, finding.message, type(self)


def _heavy_run() -> None:
    """This flake8 process analyses files: fewer garbage collections from now on, and what
    the run keeps let go of before the interpreter's teardown (:mod:`.collector`,
    :func:`.analysis.driver.projects.release_at_exit`)."""
    from ..analysis.driver.projects import release_at_exit
    from ..project.collector import raise_for_the_process

    raise_for_the_process()
    release_at_exit(_forget_flake8_run)


def _forget_flake8_run() -> None:
    ExtStreamChecker._flake8_run = None


@lru_cache(maxsize=256)
def _settings_for(directory: str) -> tuple[tuple[str, ...], bool, int]:
    from .config import Config, ConfigError, find_pyproject, load_config

    try:
        path = find_pyproject(directory)
        if path is None:
            return (), True, Config.max_file_size
        config = load_config(path)
    except (ConfigError, OSError):  # the CLI reports a bad configuration; flake8 goes on
        return (), True, Config.max_file_size
    return config.src, config.cache, config.max_file_size


def _settings(filename: str) -> tuple[tuple[str, ...], bool, int]:
    """``src``, ``cache`` and ``max-file-size`` of ``[tool.extstream-lint]`` nearest to the
    file (as the CLI reads them), so both adapters see the same project."""
    if not filename or filename in ("-", "stdin") or filename.startswith("<"):
        from .config import Config

        return (), True, Config.max_file_size
    return _settings_for(os.path.dirname(os.path.abspath(filename)))
