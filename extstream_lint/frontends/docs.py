"""Rule pages rendered from the contract table: one renderer for docs, ``--explain`` and SARIF.

Each page follows ruff's shape (What it does / Why is this bad? / Example / Use instead)
plus the list of fixes, best first. The pages live in ``docs/rules.md`` (each behind a
stable ``<a id="xst101">`` anchor, which SARIF's ``helpUri`` points at); the README carries
only the index, linking there. ``extstream-lint --explain XST101`` prints exactly the page
of ``docs/rules.md``, and a test fails if either file drifts from the table. The README's
sample outputs are generated too: a ```` ```text ```` block whose first line is
``$ extstream-lint ARGS`` holds that command's output, run in the checkout. Regenerate all
of it with::

    python -m extstream_lint.frontends.docs --write
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence

from ..contract import REFUSED, RULES, Rule

__all__ = [
    "README_PATH",
    "RULES_PAGE",
    "RULES_PATH",
    "anchor",
    "check",
    "render_guard_blind_section",
    "render_readme_index",
    "render_rule",
    "render_rules_section",
    "render_samples",
    "replace_section",
    "section_text",
    "write",
]

#: The checkout: this module is ``extstream_lint/frontends/docs.py`` in it.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
#: The README of a source checkout: the index.
README_PATH = os.path.join(_CHECKOUT, "README.md")
#: The rule pages, relative to the checkout (SARIF's ``helpUri`` names the same path).
RULES_PAGE = "docs/rules.md"
RULES_PATH = os.path.join(_CHECKOUT, *RULES_PAGE.split("/"))

#: The generated section of ``docs/rules.md`` (every page) and of the README (the index).
SECTION = "rules"
README_SECTION = "rule-index"
#: The README's list of spellings the runtime guard cannot intercept.
GUARD_BLIND_SECTION = "guard-blind"


def _code_block(code: str) -> str:
    return f"```python\n{code}\n```"


def render_rule(rule: Rule) -> str:
    """The markdown page of one rule (no trailing newline)."""
    fixes = "\n".join(f"{number}. {fix}" for number, fix in enumerate(rule.fixes, start=1))
    return "\n\n".join(
        [
            f"### {rule.code} ({rule.category}): {rule.title}",
            f"#### What it does\n\n{rule.what}",
            f"#### Why is this bad?\n\n{rule.why}",
            f"#### Example\n\n{_code_block(rule.example)}",
            f"#### Use instead\n\n{_code_block(rule.instead)}",
            f"#### Fixes, best first\n\n{fixes}",
            f"#### Automatic fix\n\n{_autofix(rule)}",
        ]
    )


#: How each applicability is applied, for the rule pages (ruff's wording of its flags).
_HOW = {
    "safe": "`extstream-lint --fix` applies it",
    "unsafe": "only `extstream-lint --fix --unsafe-fixes` applies it; `--diff` shows it",
    "none": "`extstream-lint --fix` leaves this finding to you",
}


def _autofix(rule: Rule) -> str:
    """The "Fix: safe / unsafe / none" line of a rule page, and why, from the contract."""
    return f"**Fix: {rule.autofix}** ({_HOW[rule.autofix]}). {rule.autofix_why}"


def anchor(code: str) -> str:
    """The stable anchor of a rule's page: the bare code, which no title change breaks."""
    return code.lower()


def _index(page: str) -> str:
    rows = ["| Code | Category | Title | Fix |", "|---|---|---|---|"]
    rows += [
        f"| [{rule.code}]({page}#{anchor(rule.code)}) | {rule.category} | {_cell(rule.title)} "
        f"| {rule.autofix} |"
        for rule in RULES.values()
    ]
    return "\n".join(rows)


def render_rules_section() -> str:
    """The generated part of ``docs/rules.md``: an index table, then every rule page."""
    intro = (
        "Generated from `extstream_lint/contract.py` by `python -m extstream_lint.frontends.docs "
        "--write`; do not edit by hand. `extstream-lint --explain CODE` prints the same page "
        "in the terminal."
    )
    pages = [f'<a id="{anchor(rule.code)}"></a>\n\n{render_rule(rule)}' for rule in RULES.values()]
    return "\n\n".join([intro, _index(""), *pages])


def render_readme_index() -> str:
    """The README's rules section: the index, linking to the pages in ``docs/rules.md``."""
    off = ", ".join(rule.code for rule in RULES.values() if rule.opt_in)
    intro = (
        "## Rules\n\n"
        f"Every code, with what it does, why, an example and the fixes: [`{RULES_PAGE}`]"
        f"({RULES_PAGE}), or `extstream-lint --explain CODE` in the terminal. Off by default "
        f"(turn them on with `--extend-select`): {off}. Fix: what `--fix` does "
        "([Fixes](#fixes))."
    )
    return f"{intro}\n\n{_index(RULES_PAGE)}"


def render_guard_blind_section() -> str:
    """The spellings the runtime guard cannot see and why, from the table's ``guard_blind``.

    A row without guard patches is invisible as a whole (its example is shown); a patched row
    with a ``guard_blind`` reason is invisible only under its aliases.
    """
    by_reason: dict[str, list[str]] = {}
    for api in REFUSED:
        if not api.guard_blind:
            continue
        spellings = [api.example.split("\n")[0].rstrip(":")] if not api.guard else api.aliases
        by_reason.setdefault(api.guard_blind, []).extend(f"`{s}`" for s in spellings)
    lines = [
        "The guard cannot see these spellings (the linter flags them all; generated from "
        "`extstream_lint/contract.py`):",
        "",
    ]
    lines += [f"* {', '.join(spellings)}: {reason}." for reason, spellings in by_reason.items()]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- SECTION:{name} -->", f"<!-- /SECTION:{name} -->"


def section_text(text: str, name: str) -> str:
    """The text between the markers of section ``name`` (without surrounding newlines)."""
    start, end = _markers(name)
    try:
        _, rest = text.split(start, 1)
        body, _ = rest.split(end, 1)
    except ValueError as exc:
        raise ValueError(f"no {start} ... {end} markers") from exc
    return body.strip("\n")


def replace_section(text: str, name: str, body: str) -> str:
    """``text`` with section ``name`` replaced by ``body``; the rest is left untouched."""
    start, end = _markers(name)
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def _targets(readme: str, rules: str) -> list[tuple[str, str, str]]:
    """(path, section, rendered body) of every generated section."""
    return [
        (rules, SECTION, render_rules_section()),
        (readme, README_SECTION, render_readme_index()),
        (readme, GUARD_BLIND_SECTION, render_guard_blind_section()),
    ]


#: A README sample: a ```text block whose first line is a command, the rest its output.
_SAMPLE = re.compile(r"^```text\n\$ (extstream-lint [^\n]*)\n.*?^```$", re.M | re.S)


def render_samples(text: str, cwd: str = _CHECKOUT) -> str:
    """``text`` with each sample's output replaced by what its command prints in ``cwd``.

    The command runs as a user runs it (a new process, ``python -m extstream_lint``), so a
    changed message, format or example file changes the README with it instead of leaving
    a stale sample behind.
    """

    def rerun(match: re.Match[str]) -> str:
        command = match.group(1)
        argv = [sys.executable, "-m", "extstream_lint", *shlex.split(command)[1:]]
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
        if done.returncode not in (0, 1) or "error:" in done.stderr or "warning:" in done.stderr:
            raise RuntimeError(f"README sample `{command}` failed: {done.stderr.strip()}")
        # what the terminal shows: the report, then the summary (ruff's wording, on stderr)
        return f"```text\n$ {command}\n{done.stdout}{done.stderr}```"

    return _SAMPLE.sub(rerun, text)


def _has_section(text: str, name: str) -> bool:
    return _markers(name)[0] in text


def _optional(name: str) -> bool:
    """The guard-blind list is generated only where a file has its markers (tests' READMEs)."""
    return name == GUARD_BLIND_SECTION


def _regenerated(readme: str, rules: str) -> dict[str, tuple[str, str]]:
    """Each generated file's path -> (its text now, its text with every section rendered)."""
    files: dict[str, tuple[str, str]] = {}
    for path, name, body in _targets(readme, rules):
        if path not in files:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            files[path] = (text, text)
        old, new = files[path]
        if not (_optional(name) and not _has_section(new, name)):
            files[path] = (old, replace_section(new, name, body))
    old, new = files[readme]
    files[readme] = (old, render_samples(new, os.path.dirname(os.path.abspath(readme))))
    return files


def check(readme: str = README_PATH, rules: str = RULES_PATH) -> list[str]:
    """The files whose generated sections differ from the table (empty: all up to date)."""
    return [path for path, (old, new) in _regenerated(readme, rules).items() if old != new]


def write(readme: str = README_PATH, rules: str = RULES_PATH) -> list[str]:
    """Rewrite the generated sections in place; returns the files that changed."""
    changed = []
    for path, (old, new) in _regenerated(readme, rules).items():
        if new != old:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(new)
            changed.append(path)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m extstream_lint.frontends.docs [--write | --check] [--readme P] [--rules P]``."""
    parser = argparse.ArgumentParser(
        prog="python -m extstream_lint.frontends.docs", description="Render the rule pages."
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--write",
        action="store_true",
        help="rewrite docs/rules.md, the README's index and its sample outputs",
    )
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if either generated section is stale"
    )
    parser.add_argument("--readme", default=README_PATH, help="README (default: %(default)s)")
    parser.add_argument("--rules", default=RULES_PATH, help="rule pages (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.write:
        changed = write(args.readme, args.rules)
        for path in (args.rules, args.readme):
            print(f"{path}: {'updated' if path in changed else 'already up to date'}")
        return 0
    if args.check:
        stale = check(args.readme, args.rules)
        for path in stale:
            print(
                f"{path}: stale; run python -m extstream_lint.frontends.docs --write",
                file=sys.stderr,
            )
        return 1 if stale else 0
    sys.stdout.write(render_rules_section() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
