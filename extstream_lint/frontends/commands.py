"""What ``extstream-lint`` does besides reporting, as ruff does it: the rule list, the
settings and files of a run, ``--add-noqa``, and ``--fix`` of stdin.

Apart from :mod:`.cli` so that the command's main path stays short; each function takes the
run's :class:`.Options` (and its results) and returns the exit status or what it wrote.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import fields

from ..contract import RULES
from ..project.discovery import iter_files
from .fixes import Edit, apply_edits, write_or_warn
from .formats import Located, format_text
from .noqa import NoqaMap, is_silenced_by
from .options import Options

__all__ = ["add_noqa", "fix_stdin", "list_rules", "noqa_edits", "show_files", "show_settings"]


def list_rules() -> str:
    """``--explain`` without a code: one line per rule (ruff's ``rule --all`` in short):
    code, whether it is off by default, whether ``--fix`` has a rewrite, and the title."""
    lines = []
    for rule in RULES.values():
        off = "off" if rule.opt_in else "on "
        fix = {"safe": "fix", "unsafe": "fix*"}.get(rule.autofix, "")
        lines.append(f"{rule.code}  {off}  {fix:<4}  {rule.title}".rstrip())
    legend = "on/off: reported by default or not; fix: --fix has a rewrite (*: --unsafe-fixes)"
    return "\n".join([*lines, "", legend]) + "\n"


def show_settings(options: Options) -> str:
    """``--show-settings``: every setting of the run, one ``name = value`` a line, after
    the file they were read from (ruff prints its resolved settings the same way)."""
    lines = [f"# configuration: {options.config_path or 'none (defaults and flags)'}"]
    for field in fields(options):
        if field.name in ("config_path", "warnings"):
            continue
        value = getattr(options, field.name)
        if field.name == "selection":
            lines.append(f"select = {list(value.select)}")
            lines.append(f"ignore = {list(value.ignore)}")
            lines.append(f"per_file_ignores = {dict(value.per_file_ignores)}")
            enabled = [code for code in RULES if value.wants(code, "")]
            lines.append(f"enabled = {enabled}")
            continue
        lines.append(f"{field.name} = {list(value) if isinstance(value, tuple) else value!r}")
    return "\n".join(lines) + "\n"


def show_files(options: Options) -> str:
    """``--show-files``: the files a run would look at (before the pre-filter, which
    decides from their text which of them can hold an external stream), one a line."""
    if options.paths == ("-",):
        return options.stdin_filename + "\n"
    files = iter_files(options.paths, options.exclude, options.root, options.respect_gitignore)
    return "".join(os.path.normpath(path) + "\n" for path in sorted(files))


def add_noqa(results: Sequence[Located], texts: dict[str, str], trees: Sequence[str]) -> int:
    """``--add-noqa``: a ``# noqa: CODE`` on each line that has a finding, added to a
    ``# noqa:`` already there (its codes kept), so that a code base adopting extstream
    starts clean and each silenced line says which rule it is about. Returns how many
    lines changed. Files are written as ``--fix`` writes them (:func:`.fixes.write_fix`:
    a temporary file renamed over it, no link out of ``trees``); a file changed since it
    was linted is left alone."""
    by_path: dict[str, dict[int, list[str]]] = {}
    for r in results:
        codes = by_path.setdefault(r.path, {}).setdefault(r.finding.line, [])
        if r.finding.code not in codes:
            codes.append(r.finding.code)
    changed = 0
    for path, lines in sorted(by_path.items()):
        text = texts.get(path)
        edits = noqa_edits(text, lines) if text is not None else []
        if not edits or text is None:
            continue
        refused = "warning: no noqa added to {path}: {reason}"
        failed = "warning: cannot add noqa to {path}: {error}"
        if write_or_warn(path, text, edits, trees, refused, failed):
            changed += len(edits)
    return changed


def noqa_edits(text: str, wanted: dict[int, list[str]]) -> list[Edit]:
    """An edit at the end of each line that does not yet silence all of its codes: the codes
    added to its ``# noqa:`` list (``x  # noqa: A`` gives ``x  # noqa: A, B``), or a new
    comment. Only the end of the line changes: the encoding, BOM and newlines stay."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    noqa = NoqaMap(text)
    edits = []
    for number, codes in sorted(wanted.items()):
        if not 0 < number <= len(lines):
            continue
        missing = [code for code in codes if not is_silenced_by(noqa.text_for(number), code)]
        if not missing:
            continue
        body = lines[number - 1]
        end = len(body.rstrip())
        listed = body.lower().rfind("# noqa:") != -1
        added = f", {', '.join(missing)}" if listed else f"  # noqa: {', '.join(missing)}"
        edits.append(Edit((number, end), (number, len(body)), added))
    return edits


def fix_stdin(options: Options, results: Sequence[Located], text: str) -> int:
    """``--fix -``: the fixed source on stdout (what an editor's format-on-save pipes
    through), the findings left on stderr; exit 1 when some are left, as ruff does."""
    applied = [r for r in results if r.fix and (r.fix.safe or options.unsafe_fixes)]
    edits = [edit for r in applied if r.fix for edit in r.fix.edits]
    sys.stdout.write(apply_edits(text, edits))
    left = [r for r in results if r not in applied]
    sys.stderr.write(format_text(left))
    if not options.quiet and applied:
        found = f"{len(results)} error{'' if len(results) == 1 else 's'}"
        sys.stderr.write(f"Found {found} ({len(applied)} fixed, {len(left)} remaining).\n")
    return 1 if left and not options.exit_zero else 0
