"""One file's findings, as both the command and the language server report them.

:func:`lint_text` runs the pre-filter and the analysis on a decoded file (in the run's
project index, so a warm file costs no parse); :func:`located` applies what the user chose
(select and ignore, per-file ignores, ``# noqa``) and finds each finding's fix. Apart from
:mod:`.cli` so that :mod:`.server` uses them without the command's machinery.
"""

from __future__ import annotations

import os

from ..bugreport import HOW_TO_REPORT
from ..findings import Finding, cannot_analyse
from ..project.modules import one_run
from ..project.prefilter import should_analyse
from .fixes import Edit, Fix, find_fixes, has_rewriter
from .formats import Located
from .noqa import filter_noqa
from .options import Options
from .trace import openable

__all__ = ["analyse_one", "lint_text", "located", "normalize_newlines"]


def normalize_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` to ``\\n``, so line numbers match flake8's reading of the file."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def lint_text(
    text: str, filename: str, src: tuple[str, ...] = (), cache: bool = False
) -> list[Finding]:
    """Pre-filter, then the analysis: every finding of one decoded file, unfiltered.

    ``src`` are configured import roots; ``cache`` keeps module summaries on disk.
    """
    with one_run():  # the pre-filter and the analysis look up the same modules: once
        if not should_analyse(text, filename, src, cache):
            return []
        return analyse_one(text, filename, src, cache)


def analyse_one(text: str, filename: str, src: tuple[str, ...], cache: bool) -> list[Finding]:
    """The analysis of a file that passed the pre-filter (never raises)."""
    try:
        from ..analysis.driver.projects import index_for, kept_findings, release_at_exit

        release_at_exit()
        project = index_for(src, cache)
        text = normalize_newlines(text)
        kept = kept_findings(text, filename, project)
        if kept is not None:
            return kept
        from ..analysis import analyze_source  # libcst only for files that need it

        return list(analyze_source(text, filename, project=project, kept=False))
    except Exception as exc:  # analyze_source must not raise; one bad file must not end the run
        return [cannot_analyse(f"internal error in the analysis: {exc!r}; {HOW_TO_REPORT}")]


def located(
    options: Options,
    shown: str,
    text: str | None,
    findings: list[Finding],
    fixing: bool,
    head: str | None = None,
) -> list[Located]:
    """What a run reports of one file's findings (``text``: as linted, None if it could not
    be read; ``head``: the start of a file too large to read whole, for its ``# noqa``):
    those the selection, per-file ignores and ``# noqa`` keep, with other modules' paths
    from the working directory, and (``fixing``) each one's fix. The language server
    reports through this too, so both say the same of a file."""
    kept = [f for f in findings if options.selection.wants(f.code, shown)]
    noqa_text = text if text is not None else head
    if kept and not options.disable_noqa and noqa_text is not None:
        kept = filter_noqa(kept, normalize_newlines(noqa_text))
    fixes = _fixes(options, shown, text, kept) if fixing and kept and text is not None else {}
    return [Located(shown, openable(f, shown, options.src), fixes.get(f)) for f in kept]


def _fixes(options: Options, shown: str, text: str, findings: list[Finding]) -> dict[Finding, Fix]:
    """:func:`.fixes.find_fixes`, kept in ``.extstream_cache/`` with the digest of the text
    (a fix is a function of the text and the finding alone): a warm run that reports kept
    findings imports no libcst and parses nothing to say which have a fix. Only the
    findings not kept yet are looked at; never raises."""
    wanted = [f for f in findings if has_rewriter(f.code)]
    if not wanted or not options.cache or shown == "-":
        return find_fixes(text, wanted) if wanted else {}
    try:
        from ..analysis.driver.cache import DiskCache
        from ..analysis.driver.digests import FIXES_KEY, text_digest
        from ..analysis.driver.entries import FixesEntry

        cache, path, digest = DiskCache(), os.path.abspath(shown), text_digest(text)
        entry = cache.load(path, FIXES_KEY)
        known = entry.fixes if isinstance(entry, FixesEntry) and entry.text == digest else {}
        missing = [f for f in wanted if (f.line, f.col, f.code, f.message) not in known]
        if missing:
            found = find_fixes(text, missing)
            known = {**known, **{_key(f): _plain(found.get(f)) for f in missing}}
            cache.store(path, FixesEntry(digest, known), FIXES_KEY)
        fixes = {f: _fix(known[_key(f)]) for f in wanted}
    except Exception:  # a damaged entry, or no cache here: found afresh
        return find_fixes(text, wanted)
    return {f: fix for f, fix in fixes.items() if fix is not None}


def _key(finding: Finding) -> tuple[int, int, str, str]:
    return finding.line, finding.col, finding.code, finding.message


def _plain(fix: Fix | None) -> tuple[str, bool, tuple[object, ...]] | None:
    """A fix as plain data, as the cache keeps it (its classes are the command's)."""
    if fix is None:
        return None
    return fix.description, fix.safe, tuple((e.start, e.end, e.text) for e in fix.edits)


def _fix(kept: tuple[str, bool, tuple[object, ...]] | None) -> Fix | None:
    if kept is None:
        return None
    description, safe, edits = kept
    return Fix(description, safe, tuple(Edit(*edit) for edit in edits))  # type: ignore[misc]
