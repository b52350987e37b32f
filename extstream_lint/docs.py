"""Rule pages rendered from the contract table: one renderer for the README and ``--explain``.

Each page follows ruff's shape (What it does / Why is this bad? / Example / Use instead)
plus the list of fixes, best first. ``extstream-lint --explain XST101`` prints exactly the
README text of that rule, and a test fails if the README's rules section drifts from
:func:`render_rules_section`. Regenerate it with::

    python -m extstream_lint.docs --write-readme
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .contract import REFUSED, RULES, Rule

__all__ = [
    "README_PATH",
    "check_readme",
    "render_guard_blind_section",
    "render_rule",
    "render_rules_section",
    "replace_section",
    "write_readme",
]

#: The README of a source checkout (the package lives one level below it).
README_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")

SECTION = "rules"
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
        ]
    )


def render_rules_section() -> str:
    """The whole README rules section: an index table, then every rule page."""
    index = ["| Code | Category | Title |", "|---|---|---|"]
    index += [
        f"| [{rule.code}](#{_anchor(rule)}) | {rule.category} | {_cell(rule.title)} |"
        for rule in RULES.values()
    ]
    intro = (
        "## Rules\n\n"
        "Generated from `extstream_lint/contract.py` by "
        "`python -m extstream_lint.docs --write-readme`; do not edit by hand. "
        "`extstream-lint --explain CODE` prints the same page in the terminal."
    )
    pages = [render_rule(rule) for rule in RULES.values()]
    return "\n\n".join([intro, "\n".join(index), *pages])


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


def _anchor(rule: Rule) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    heading = f"{rule.code} ({rule.category}): {rule.title}".lower()
    kept = "".join(ch for ch in heading if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def _markers(name: str) -> tuple[str, str]:
    return f"<!-- SECTION:{name} -->", f"<!-- /SECTION:{name} -->"


def section_text(readme: str, name: str) -> str:
    """The text between the markers of section ``name`` (without surrounding newlines)."""
    start, end = _markers(name)
    try:
        _, rest = readme.split(start, 1)
        body, _ = rest.split(end, 1)
    except ValueError as exc:
        raise ValueError(f"README has no {start} ... {end} markers") from exc
    return body.strip("\n")


def replace_section(readme: str, name: str, body: str) -> str:
    """``readme`` with section ``name`` replaced by ``body``; the rest is left untouched."""
    start, end = _markers(name)
    head, rest = readme.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{body}\n{end}{tail}"


def _generated() -> dict[str, str]:
    return {SECTION: render_rules_section(), GUARD_BLIND_SECTION: render_guard_blind_section()}


def check_readme(path: str = README_PATH) -> bool:
    """True if the README's generated sections are exactly the rendered ones."""
    with open(path, encoding="utf-8") as handle:
        readme = handle.read()
    return all(
        _has_section(readme, name) and section_text(readme, name) == body
        for name, body in _generated().items()
        if name == SECTION or _has_section(readme, name)
    )


def _has_section(readme: str, name: str) -> bool:
    return _markers(name)[0] in readme


def write_readme(path: str = README_PATH) -> bool:
    """Rewrite the generated sections in place; True if the file changed."""
    with open(path, encoding="utf-8") as handle:
        old = handle.read()
    new = old
    for name, body in _generated().items():
        if name == SECTION or _has_section(new, name):
            new = replace_section(new, name, body)
    if new != old:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(new)
    return new != old


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m extstream_lint.docs [--write-readme | --check] [--readme PATH]``."""
    parser = argparse.ArgumentParser(
        prog="python -m extstream_lint.docs", description="Render the rule pages."
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--write-readme", action="store_true", help="rewrite the README rules section"
    )
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if the README rules section is stale"
    )
    parser.add_argument("--readme", default=README_PATH, help="README path (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.write_readme:
        changed = write_readme(args.readme)
        print(f"{args.readme}: {'updated' if changed else 'already up to date'}")
        return 0
    if args.check:
        if check_readme(args.readme):
            return 0
        print(
            f"{args.readme}: rules section is stale; run python -m extstream_lint.docs "
            "--write-readme",
            file=sys.stderr,
        )
        return 1
    sys.stdout.write(render_rules_section() + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
