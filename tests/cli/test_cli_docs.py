"""Rule pages: one renderer for docs/rules.md, the README index and --explain; no drift."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extstream_lint.contract import RULES
from extstream_lint.frontends.cli import build_parser, main
from extstream_lint.frontends.config import CONFIG_KEYS
from extstream_lint.frontends.docs import (
    README_PATH,
    RULES_PATH,
    check,
    render_readme_index,
    render_rule,
    render_rules_section,
    render_samples,
    replace_section,
    section_text,
)
from extstream_lint.frontends.docs import main as docs_main


def readme() -> str:
    return Path(README_PATH).read_text(encoding="utf-8")


def rule_pages() -> str:
    return Path(RULES_PATH).read_text(encoding="utf-8")


def test_rule_pages_and_readme_index_are_the_rendered_contract() -> None:
    assert section_text(rule_pages(), "rules") == render_rules_section(), (
        "docs/rules.md is stale: run python -m extstream_lint.frontends.docs --write"
    )
    assert section_text(readme(), "rule-index") == render_readme_index(), (
        "the README's rule index is stale: run python -m extstream_lint.frontends.docs --write"
    )
    assert check() == []


def test_readme_sample_outputs_are_what_the_commands_print() -> None:
    """Each ```text block starting with ``$ extstream-lint ...`` is that command's output, run
    in the checkout; ``python -m extstream_lint.frontends.docs --write`` regenerates them."""
    text = readme()
    samples = re.findall(r"^```text\n\$ (extstream-lint [^\n]*)\n", text, re.M)
    # the quick start's command on the bundled example, and the JSON format
    assert "extstream-lint examples/" in samples, samples
    assert any("--format json" in command for command in samples), samples
    assert render_samples(text) == text, (
        "a README sample output is stale: run python -m extstream_lint.frontends.docs --write"
    )


def test_a_stale_sample_is_regenerated_and_reported(tmp_path: Path) -> None:
    stale = (
        "# T\n\n```text\n$ extstream-lint --select XST001 examples/\nold output\n```\n"
        f"<!-- SECTION:rule-index -->\n{render_readme_index()}\n<!-- /SECTION:rule-index -->\n"
    )
    fresh = render_samples(stale, str(Path(README_PATH).parent))
    assert "old output" not in fresh and fresh.endswith("<!-- /SECTION:rule-index -->\n")
    (line,) = fresh.split("examples/\n", 1)[1].split("```", 1)[0].splitlines()
    assert line.startswith("examples/interop.py:27:9: XST001 "), line
    readme_path, rules_path = tmp_path / "README.md", tmp_path / "rules.md"
    readme_path.write_text(stale)
    rules_path.write_text(
        f"<!-- SECTION:rules -->\n{render_rules_section()}\n<!-- /SECTION:rules -->\n"
    )
    (tmp_path / "examples").symlink_to(Path(README_PATH).parent / "examples")
    paths = ["--readme", str(readme_path), "--rules", str(rules_path)]
    assert docs_main(["--check", *paths]) == 1
    assert docs_main(["--write", *paths]) == 0
    assert readme_path.read_text() == fresh


def test_every_index_link_reaches_a_stable_anchor_in_the_pages() -> None:
    pages = rule_pages()
    links = re.findall(r"\]\(docs/rules\.md#([a-z0-9]+)\)", section_text(readme(), "rule-index"))
    assert links == [code.lower() for code in RULES]
    for name in links:
        assert f'<a id="{name}"></a>' in pages, name


@pytest.mark.parametrize("code", list(RULES))
def test_explain_prints_exactly_the_readme_page(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--explain", code.lower()]) == 0
    page = capsys.readouterr().out
    assert page == render_rule(RULES[code]) + "\n"
    assert page.rstrip("\n") in section_text(rule_pages(), "rules")


@pytest.mark.parametrize("rule", list(RULES.values()), ids=list(RULES))
def test_every_page_has_ruffs_shape_and_the_contract_text(rule: object) -> None:
    page = render_rule(rule)  # type: ignore[arg-type]
    headings = re.findall(r"^#+ .*$", page, flags=re.M)
    assert headings == [
        f"### {rule.code} ({rule.category}): {rule.title}",  # type: ignore[attr-defined]
        "#### What it does",
        "#### Why is this bad?",
        "#### Example",
        "#### Use instead",
        "#### Fixes, best first",
        "#### Automatic fix",
    ]
    for text in (rule.what, rule.why, rule.example, rule.instead, *rule.fixes):  # type: ignore[attr-defined]
        assert text in page
    # ruff's fix applicability, and why, from the contract
    assert f"**Fix: {rule.autofix}**" in page  # type: ignore[attr-defined]
    assert rule.autofix in ("safe", "unsafe", "none")  # type: ignore[attr-defined]
    assert rule.autofix_why and rule.autofix_why in page  # type: ignore[attr-defined]


def test_explain_unknown_code_exits_2_listing_valid_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--explain", "XST999"]) == 2
    err = capsys.readouterr().err
    assert "unknown code 'XST999'" in err
    assert all(code in err for code in RULES)


def test_write_only_touches_the_generated_sections(tmp_path: Path) -> None:
    readme_path, rules_path = tmp_path / "README.md", tmp_path / "rules.md"
    readme_path.write_text(
        "# T\n<!-- SECTION:usage -->\nkeep me\n<!-- /SECTION:usage -->\n"
        "<!-- SECTION:rule-index -->\nstale\n<!-- /SECTION:rule-index -->\ntail\n"
    )
    rules_path.write_text("# Rules\n<!-- SECTION:rules -->\nstale\n<!-- /SECTION:rules -->\n")
    paths = ["--readme", str(readme_path), "--rules", str(rules_path)]
    assert docs_main(["--check", *paths]) == 1
    assert docs_main(["--write", *paths]) == 0
    text = readme_path.read_text()
    assert text.startswith("# T\n<!-- SECTION:usage -->\nkeep me\n<!-- /SECTION:usage -->\n")
    assert text.endswith("<!-- /SECTION:rule-index -->\ntail\n")
    assert section_text(text, "rule-index") == render_readme_index()
    pages = rules_path.read_text()
    assert pages.startswith("# Rules\n") and section_text(pages, "rules") == render_rules_section()
    assert docs_main(["--check", *paths]) == 0
    assert replace_section(pages, "rules", render_rules_section()) == pages


def test_readme_usage_documents_every_flag_and_config_key() -> None:
    usage = section_text(readme(), "usage")
    flags = [
        option
        for action in build_parser()._actions
        for option in action.option_strings
        if option.startswith("--") and option not in ("--help", "--version")
    ]
    missing = [flag for flag in flags if f"`{flag}" not in usage]
    assert not missing, f"README usage section does not document {missing}"
    toml = usage.split("```toml\n[tool.extstream-lint]", 1)[1].split("```", 1)[0]
    undocumented = [
        key for key in CONFIG_KEYS if not re.search(rf"^{key} =|\.{key}\]$", toml, re.M)
    ]
    assert not undocumented, f"README's example configuration lacks {undocumented}"
    for needle in ("pre-commit", "additional_dependencies", "upload-sarif", "VS Code", "Helix"):
        assert needle in usage
