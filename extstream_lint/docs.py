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

from .contract import RULES, Rule

__all__ = [
    "README_PATH",
    "check_readme",
    "render_rule",
    "render_rules_section",
    "replace_section",
    "write_readme",
]

#: The README of a source checkout (the package lives one level below it).
README_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")

SECTION = "rules"


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


def check_readme(path: str = README_PATH) -> bool:
    """True if the README's rules section is exactly the rendered one."""
    with open(path, encoding="utf-8") as handle:
        return section_text(handle.read(), SECTION) == render_rules_section()


def write_readme(path: str = README_PATH) -> bool:
    """Rewrite the rules section in place; True if the file changed."""
    with open(path, encoding="utf-8") as handle:
        old = handle.read()
    new = replace_section(old, SECTION, render_rules_section())
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
