"""Rule pages: one renderer for README and --explain; the README cannot drift from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extstream_lint.cli import build_parser, main
from extstream_lint.config import CONFIG_KEYS
from extstream_lint.contract import RULES
from extstream_lint.docs import (
    README_PATH,
    check_readme,
    render_rule,
    render_rules_section,
    replace_section,
    section_text,
)
from extstream_lint.docs import main as docs_main


def readme() -> str:
    return Path(README_PATH).read_text(encoding="utf-8")


def test_readme_rules_section_is_the_rendered_contract() -> None:
    assert section_text(readme(), "rules") == render_rules_section(), (
        "README rules section is stale: run python -m extstream_lint.docs --write-readme"
    )
    assert check_readme()


@pytest.mark.parametrize("code", list(RULES))
def test_explain_prints_exactly_the_readme_page(
    code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--explain", code.lower()]) == 0
    page = capsys.readouterr().out
    assert page == render_rule(RULES[code]) + "\n"
    assert page.rstrip("\n") in section_text(readme(), "rules")


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
    ]
    for text in (rule.what, rule.why, rule.example, rule.instead, *rule.fixes):  # type: ignore[attr-defined]
        assert text in page


def test_explain_unknown_code_exits_2_listing_valid_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--explain", "XST999"]) == 2
    err = capsys.readouterr().err
    assert "unknown code 'XST999'" in err
    assert all(code in err for code in RULES)


def test_write_readme_only_touches_the_rules_section(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(
        "# T\n<!-- SECTION:usage -->\nkeep me\n<!-- /SECTION:usage -->\n"
        "<!-- SECTION:rules -->\nstale\n<!-- /SECTION:rules -->\ntail\n"
    )
    assert docs_main(["--check", "--readme", str(path)]) == 1
    assert docs_main(["--write-readme", "--readme", str(path)]) == 0
    text = path.read_text()
    assert text.startswith("# T\n<!-- SECTION:usage -->\nkeep me\n<!-- /SECTION:usage -->\n")
    assert text.endswith("<!-- /SECTION:rules -->\ntail\n")
    assert section_text(text, "rules") == render_rules_section()
    assert docs_main(["--check", "--readme", str(path)]) == 0
    assert replace_section(text, "rules", render_rules_section()) == text


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
    for needle in ("pre-commit", "additional_dependencies", "upload-sarif", "VS Code", "PyCharm"):
        assert needle in usage
